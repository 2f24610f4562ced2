// Texture sampling as NVIDIA hardware does it: the reference porter's texture shim (shims/porter_texture.h) is
// tested against (tests/test_classes_textures.py). Prints JSON on stdout.
//
//   nvcc -O2 -o /tmp/texref scripts/cuda_texture_reference.cu && /tmp/texref > tests/data/texture/cuda_reference.json
//
// Every combination of address mode (wrap, clamp, mirror, border), filter (point, linear) and coordinates
// (unnormalized, normalized) is sampled on small textures whose texel values are all distinct: a 5x4 float 2D
// array, a 3x3 uchar4 2D array read as normalized floats, a 7-texel float 1D array, a 3x3x2 float 3D array and
// a float linear buffer read with tex1Dfetch. Border-mode configurations are sampled twice, with a zero and a
// non-zero border colour.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

struct Coord { float x, y, z; };

template <int Dim, class T>
__global__ void sample(cudaTextureObject_t tex, const Coord* at, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Coord c = at[i];
    T v;
    if (Dim == 1) v = tex1D<T>(tex, c.x);
    if (Dim == 2) v = tex2D<T>(tex, c.x, c.y);
    if (Dim == 3) v = tex3D<T>(tex, c.x, c.y, c.z);
    float4 r;
    if constexpr (sizeof(T) == sizeof(float)) r = make_float4(*reinterpret_cast<float*>(&v), 0.f, 0.f, 0.f);
    else r = *reinterpret_cast<float4*>(&v);
    out[i] = r;
}

__global__ void fetch(cudaTextureObject_t tex, const int* at, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = make_float4(tex1Dfetch<float>(tex, at[i]), 0.f, 0.f, 0.f);
}

static const char* kAddress[] = {"wrap", "clamp", "mirror", "border"};
static const cudaTextureAddressMode kAddressModes[] = {cudaAddressModeWrap, cudaAddressModeClamp,
                                                        cudaAddressModeMirror, cudaAddressModeBorder};

static std::vector<float> axis(float lo, float hi, float step) {
    std::vector<float> v;
    for (float x = lo; x <= hi + 1e-6f; x += step) v.push_back(x);
    return v;
}

// coordinates: a regular grid through and beyond the texture plus off-grid points that expose the weights
static std::vector<float> coords(int size, bool normalized) {
    std::vector<float> v = normalized ? axis(-1.25f, 2.25f, 1.0f / 16) : axis(-1.5f, size + 1.5f, 0.25f);
    const float odd[] = {0.3f, 0.77f, 1.1f, 1.4999f, 1.5001f, 2.013f, 0.0039f};
    for (float o : odd) v.push_back(normalized ? o / size : o);
    return v;
}

struct Texture {
    const char* name;
    int dim, w, h, d;
    bool uchar4_normalized;
};

static void run(const Texture& t, cudaArray_t array, bool first) {
    for (int norm = 0; norm < 2; ++norm)
        for (int filter = 0; filter < 2; ++filter)
            for (int a = 0; a < 4; ++a)
                for (int border = 0; border < (a == 3 ? 2 : 1); ++border) {
                    cudaResourceDesc res = {};
                    res.resType = cudaResourceTypeArray;
                    res.res.array.array = array;
                    cudaTextureDesc td = {};
                    for (int k = 0; k < 3; ++k) td.addressMode[k] = kAddressModes[a];
                    td.filterMode = filter ? cudaFilterModeLinear : cudaFilterModePoint;
                    td.readMode = t.uchar4_normalized ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
                    td.normalizedCoords = norm;
                    const float colour[4] = {2.5f, -1.0f, 0.25f, 7.0f};
                    for (int k = 0; k < 4; ++k) td.borderColor[k] = border ? colour[k] : 0.0f;
                    cudaTextureObject_t tex;
                    CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));

                    std::vector<float> xs = coords(t.w, norm), ys = coords(t.h, norm), zs = coords(t.d, norm);
                    if (t.dim == 2) ys = std::vector<float>(ys.begin(), ys.begin() + ys.size() / 2 + 3);
                    if (t.dim == 3) {  // a sparser grid in 3D
                        std::vector<float> sparse;
                        for (size_t k = 0; k < xs.size(); k += 3) sparse.push_back(xs[k]);
                        xs = sparse;
                        ys = std::vector<float>(ys.begin(), ys.begin() + 8);
                        zs = std::vector<float>(zs.begin(), zs.begin() + 6);
                    }
                    std::vector<Coord> at;
                    for (float z : (t.dim == 3 ? zs : std::vector<float>{0.f}))
                        for (float y : (t.dim >= 2 ? ys : std::vector<float>{0.f}))
                            for (float x : xs) at.push_back({x, y, z});
                    int n = static_cast<int>(at.size());
                    Coord* dAt;
                    float4* dOut;
                    CHECK(cudaMalloc(&dAt, n * sizeof(Coord)));
                    CHECK(cudaMalloc(&dOut, n * sizeof(float4)));
                    CHECK(cudaMemcpy(dAt, at.data(), n * sizeof(Coord), cudaMemcpyHostToDevice));
                    int blocks = (n + 127) / 128;
                    if (t.uchar4_normalized) sample<2, float4><<<blocks, 128>>>(tex, dAt, dOut, n);
                    else if (t.dim == 1) sample<1, float><<<blocks, 128>>>(tex, dAt, dOut, n);
                    else if (t.dim == 2) sample<2, float><<<blocks, 128>>>(tex, dAt, dOut, n);
                    else sample<3, float><<<blocks, 128>>>(tex, dAt, dOut, n);
                    CHECK(cudaGetLastError());
                    std::vector<float4> out(n);
                    CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(float4), cudaMemcpyDeviceToHost));
                    printf("%s{\"texture\": \"%s\", \"address\": \"%s\", \"filter\": \"%s\", \"normalized\": %d, "
                           "\"border\": [%.9g, %.9g, %.9g, %.9g], \"samples\": [",
                           first ? "" : ",\n", t.name, kAddress[a], filter ? "linear" : "point", norm,
                           td.borderColor[0], td.borderColor[1], td.borderColor[2], td.borderColor[3]);
                    first = false;
                    int channels = t.uchar4_normalized ? 4 : 1;
                    for (int i = 0; i < n; ++i) {
                        printf("%s[%.9g, %.9g, %.9g, %.9g", i ? ", " : "", at[i].x, at[i].y, at[i].z, out[i].x);
                        if (channels == 4) printf(", %.9g, %.9g, %.9g", out[i].y, out[i].z, out[i].w);
                        printf("]");
                    }
                    printf("]}");
                    CHECK(cudaDestroyTextureObject(tex));
                    CHECK(cudaFree(dAt));
                    CHECK(cudaFree(dOut));
                }
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("{\"device\": \"%s\", \"cuda_runtime\": %d,\n", prop.name, CUDART_VERSION);

    // texel values: distinct, not in a plane (so bilinear weights show), exactly representable
    const Texture f2d = {"float2d", 2, 5, 4, 1, false}, u2d = {"uchar4_2d", 2, 3, 3, 1, true};
    const Texture f1d = {"float1d", 1, 7, 1, 1, false}, f3d = {"float3d", 3, 3, 3, 2, false};
    std::vector<float> v2(5 * 4), v1(7), v3(3 * 3 * 2);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 5; ++x) v2[y * 5 + x] = x * x * 1.25f + y * 8.0f - x * y * 0.5f + (x == 2 && y == 1 ? 3.0f : 0.f);
    for (int x = 0; x < 7; ++x) v1[x] = x * x * 0.75f - x * 2.0f + 1.0f;
    for (int i = 0; i < 18; ++i) v3[i] = (i * 7 % 18) * 1.5f - 4.0f;
    std::vector<uchar4> vu(9);
    for (int i = 0; i < 9; ++i) vu[i] = make_uchar4(i * 29 % 256, 255 - i * 17, i * i * 3, i == 4 ? 255 : i * 11);

    printf("\"texels\": {\"float2d\": [");
    for (size_t i = 0; i < v2.size(); ++i) printf("%s%.9g", i ? ", " : "", v2[i]);
    printf("], \"float1d\": [");
    for (size_t i = 0; i < v1.size(); ++i) printf("%s%.9g", i ? ", " : "", v1[i]);
    printf("], \"float3d\": [");
    for (size_t i = 0; i < v3.size(); ++i) printf("%s%.9g", i ? ", " : "", v3[i]);
    printf("], \"uchar4_2d\": [");
    for (size_t i = 0; i < vu.size(); ++i) printf("%s[%d, %d, %d, %d]", i ? ", " : "", vu[i].x, vu[i].y, vu[i].z, vu[i].w);
    printf("]},\n\"configs\": [\n");

    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>(), cu = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a2, a1, a3, au;
    CHECK(cudaMallocArray(&a2, &cf, 5, 4));
    CHECK(cudaMemcpy2DToArray(a2, 0, 0, v2.data(), 5 * sizeof(float), 5 * sizeof(float), 4, cudaMemcpyHostToDevice));
    CHECK(cudaMallocArray(&a1, &cf, 7, 0));
    CHECK(cudaMemcpy2DToArray(a1, 0, 0, v1.data(), 7 * sizeof(float), 7 * sizeof(float), 1, cudaMemcpyHostToDevice));
    CHECK(cudaMallocArray(&au, &cu, 3, 3));
    CHECK(cudaMemcpy2DToArray(au, 0, 0, vu.data(), 3 * sizeof(uchar4), 3 * sizeof(uchar4), 3, cudaMemcpyHostToDevice));
    CHECK(cudaMalloc3DArray(&a3, &cf, make_cudaExtent(3, 3, 2)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(v3.data(), 3 * sizeof(float), 3, 3);
    p.dstArray = a3;
    p.extent = make_cudaExtent(3, 3, 2);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));

    run(f2d, a2, true);
    run(u2d, au, false);
    run(f1d, a1, false);
    run(f3d, a3, false);

    // tex1Dfetch on linear memory: integer indices, in and out of range
    float* lin;
    CHECK(cudaMalloc(&lin, v1.size() * sizeof(float)));
    CHECK(cudaMemcpy(lin, v1.data(), v1.size() * sizeof(float), cudaMemcpyHostToDevice));
    for (int a = 0; a < 4; ++a) {
        cudaResourceDesc res = {};
        res.resType = cudaResourceTypeLinear;
        res.res.linear.devPtr = lin;
        res.res.linear.desc = cf;
        res.res.linear.sizeInBytes = v1.size() * sizeof(float);
        cudaTextureDesc td = {};
        td.addressMode[0] = kAddressModes[a];
        td.readMode = cudaReadModeElementType;
        cudaTextureObject_t tex;
        CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
        std::vector<int> at;
        for (int i = -3; i < 11; ++i) at.push_back(i);
        int n = static_cast<int>(at.size());
        int* dAt;
        float4* dOut;
        CHECK(cudaMalloc(&dAt, n * sizeof(int)));
        CHECK(cudaMalloc(&dOut, n * sizeof(float4)));
        CHECK(cudaMemcpy(dAt, at.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        fetch<<<1, 64>>>(tex, dAt, dOut, n);
        CHECK(cudaGetLastError());
        std::vector<float4> out(n);
        CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(float4), cudaMemcpyDeviceToHost));
        printf(",\n{\"texture\": \"linear1d\", \"address\": \"%s\", \"filter\": \"point\", \"normalized\": 0, "
               "\"border\": [0, 0, 0, 0], \"samples\": [", kAddress[a]);
        for (int i = 0; i < n; ++i) printf("%s[%d, 0, 0, %.9g]", i ? ", " : "", at[i], out[i].x);
        printf("]}");
        CHECK(cudaDestroyTextureObject(tex));
    }
    printf("\n]}\n");
    return 0;
}
