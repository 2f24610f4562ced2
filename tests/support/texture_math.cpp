// Host driver for the addressing and filtering arithmetic of shims/porter_texture.h (compiled with
// -DPORTER_TEXTURE_MATH_ONLY by tests/test_classes_textures.py). Reads textures and sample positions from stdin,
// prints one sample per line.
//
// Per texture:  dims width height depth channels channel_bytes kind read_normalized address0 address1 address2
//               linear normalized srgb border0 border1 border2 border3
//               width*height*depth*channels texel values (floats for 32-bit float texels, else the integer
//               stored, half floats as their bit pattern)
//               count, then count lines "op x y z" (op 0: tex1D/2D/3D at x, y, z; op 1: tex1Dfetch at int x)
#include <cstdio>
#include <cstring>
#include <vector>

#include "porter_texture.h"

int main() {
    porter_tex::desc d;
    while (true) {
        std::memset(&d, 0, sizeof d);
        float border[4];
        if (std::scanf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %f %f %f %f", &d.dims, &d.width, &d.height,
                       &d.depth, &d.channels, &d.channel_bytes, &d.kind, &d.read_normalized, &d.address[0],
                       &d.address[1], &d.address[2], &d.linear, &d.normalized_coords, &d.srgb, &border[0],
                       &border[1], &border[2], &border[3]) != 18)
            return 0;
        const size_t texel_bytes = static_cast<size_t>(d.channels) * d.channel_bytes;
        const size_t count = static_cast<size_t>(d.width) * d.height * d.depth * d.channels;
        std::vector<unsigned char> data(count * d.channel_bytes);
        for (size_t k = 0; k < count; ++k) {
            unsigned char* p = data.data() + k * d.channel_bytes;
            if (d.kind == porter_tex::kind_float && d.channel_bytes == 4) {
                float f;
                if (std::scanf("%f", &f) != 1) return 2;
                std::memcpy(p, &f, 4);
            } else {
                long long v;
                if (std::scanf("%lld", &v) != 1) return 2;
                std::memcpy(p, &v, d.channel_bytes);  // little-endian: the low bytes
            }
        }
        d.data = data.data();
        d.pitch = d.width * texel_bytes;
        d.slice = d.pitch * d.height;
        const porter_tex::f4 b = {porter_tex::border_in_format(d, border[0]), porter_tex::border_in_format(d, border[1]),
                                  porter_tex::border_in_format(d, border[2]), porter_tex::border_in_format(d, border[3])};
        d.border = b;
        int samples;
        if (std::scanf("%d", &samples) != 1) return 2;
        for (int s = 0; s < samples; ++s) {
            int op;
            float x, y, z;
            if (std::scanf("%d %f %f %f", &op, &x, &y, &z) != 4) return 2;
            const porter_tex::f4 v = op == 1 ? porter_tex::fetch(d, static_cast<int>(x)) : porter_tex::sample(d, x, y, z);
            std::printf("%.9g %.9g %.9g %.9g\n", v.x, v.y, v.z, v.w);
        }
    }
}
