// Texture objects: bind a 2D CUDA array, sample it with tex2D (point and bilinear filtering, clamped edges).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_),    \
                    __FILE__, __LINE__, cudaGetErrorString(err_));                    \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

// Sample at pixel corners (x, y) rather than centres (x + 0.5, y + 0.5): bilinear filtering then
// averages the four pixels around the corner, and clamping repeats the edge pixels.
__global__ void sample(cudaTextureObject_t tex, float* out, int w, int h, float shift) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + shift, y + shift);
}

static cudaTextureObject_t make_texture(cudaArray_t array, cudaTextureFilterMode filter) {
    cudaResourceDesc res;
    memset(&res, 0, sizeof(res));
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof(desc));
    desc.addressMode[0] = cudaAddressModeClamp;
    desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = filter;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = 0;
    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &res, &desc, nullptr));
    return tex;
}

int main() {
    const int w = 64, h = 48;
    std::vector<float> img(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img[y * w + x] = static_cast<float>((x * 3 + y * 5) % 16);

    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &fmt, w, h));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
    cudaTextureObject_t point_tex = make_texture(array, cudaFilterModePoint);
    cudaTextureObject_t linear_tex = make_texture(array, cudaFilterModeLinear);

    float* d_out;
    CHECK(cudaMalloc(&d_out, w * h * sizeof(float)));
    std::vector<float> point(w * h), linear(w * h);
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    sample<<<grid, block>>>(point_tex, d_out, w, h, 0.5f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(point.data(), d_out, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    sample<<<grid, block>>>(linear_tex, d_out, w, h, 0.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(linear.data(), d_out, w * h * sizeof(float), cudaMemcpyDeviceToHost));

    // CPU reference: point sampling returns the pixel; bilinear at a corner is the mean of 4 clamped pixels.
    auto at = [&](int x, int y) {
        x = x < 0 ? 0 : (x >= w ? w - 1 : x);
        y = y < 0 ? 0 : (y >= h ? h - 1 : y);
        return img[y * w + x];
    };
    int point_bad = 0, linear_bad = 0;
    double checksum = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float want = 0.25f * (at(x - 1, y - 1) + at(x, y - 1) + at(x - 1, y) + at(x, y));
            if (point[y * w + x] != img[y * w + x]) ++point_bad;
            if (fabsf(linear[y * w + x] - want) > 1e-2f) ++linear_bad;
            checksum += linear[y * w + x];
        }
    printf("image %d x %d, float texture, clamp addressing\n", w, h);
    printf("point  (5,7) = %.3f, (63,47) = %.3f\n", point[7 * w + 5], point[47 * w + 63]);
    printf("linear (0,0) = %.3f, (5,7) = %.3f, (63,47) = %.3f\n", linear[0], linear[7 * w + 5], linear[47 * w + 63]);
    printf("linear checksum = %.2f\n", checksum);
    printf("point mismatches = %d, linear mismatches = %d\n", point_bad, linear_bad);
    bool ok = point_bad == 0 && linear_bad == 0;
    printf("%s\n", ok ? "PASS" : "FAIL");

    CHECK(cudaDestroyTextureObject(point_tex));
    CHECK(cudaDestroyTextureObject(linear_tex));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFree(d_out));
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
