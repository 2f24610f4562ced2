// porter shim: texture and surface objects over linear and pitched memory, for GPUs without image support.
//
// MI300 (gfx940, gfx941, gfx942) and MI350 (gfx950) have no texture units: HIP 6.4 defines
// __HIP_NO_IMAGE_SUPPORT there (ROCm 6.4's clang predefines __HIP_NO_IMAGE_SUPPORT__ for gfx942 and gfx950) and
// marks every texture and surface function unavailable. porter rewrites a port for such a target to these names
// (porter/data/rewrites.toml [no_image]): textures read plain device memory and do the addressing and
// filtering in code; CUDA arrays become pitched allocations (hipMallocPitch + hipMemcpy2D/3D); a texture
// object is a small descriptor passed by value. The same code runs on any AMD or NVIDIA GPU.
//
// Semantics: CUDA's, as documented (CUDA Programming Guide, "Texture Fetching") and as measured on NVIDIA
// hardware (an H200, scripts/texture_reference/; tests/test_classes_textures.py compares this header's
// arithmetic with those samples):
// - point sampling: texel floor(u), u = x (unnormalized) or x * size (normalized coordinates);
// - linear filtering: u - 0.5 splits into a texel index and a weight, 2/4/8 neighbours are blended;
// - address modes per axis: clamp; border (out-of-range texels read as the border colour, converted to the
//   texel format as CUDA does: clamped to [0, 1] or [-1, 1] and rounded down to the format's precision);
//   wrap and mirror with normalized coordinates (with unnormalized coordinates CUDA clamps, and so does this);
//   each neighbour of a filtered sample is addressed on its own, as the hardware does;
// - tex1Dfetch: integer index, no filtering, zero outside [0, size);
// - read modes: element type, or normalized float for 8/16-bit integer texels (v/255, v/65535,
//   max(v/127, -1), max(v/32767, -1); filtering blends -128/127 unclamped and clamps the result, as the
//   H200 does); 16-bit float
//   texels read as float.
// How this differs from CUDA:
// - filter weights are full-precision floats; CUDA's hardware keeps 8 fractional bits. Define
//   PORTER_TEXTURE_8BIT_WEIGHTS to round the weights to 1/256: that reproduces the H200's 1D filtering
//   exactly; in 2D and 3D the hardware rounds further inside and results differ by up to about 1/256 of the
//   texel range either way. Filtered normalized-integer texels differ from the H200 by up to about 2^-16
//   (its fixed-point conversion).
// - on a 1D CUDA array with border addressing and linear filtering, the H200 returns half the documented
//   value (it filters a second row of border texels in); this header returns the documented value.
// - layered textures (tex1DLayered/tex2DLayered on an array made with hipArrayLayered): the layer's 1D or 2D
//   texture; the layer index is read as unsigned and clamped to the last layer (a negative index reads the last
//   layer, as the H200 does: scripts/texture_reference/gpu_compare/layered.cu); filtering never blends layers.
// - cubemaps (texCubemap/texCubemapLayered on an array made with hipArrayCubemap, faces as slices): the face of
//   the direction's major axis, ties going to z then y, sampled as a 2D texture in normalized face coordinates
//   (gpu_compare/cubemap.cu). Layered and cubemap surfaces: the layer or face is the slice, read as unsigned
//   (gpu_compare/surflayered.cu).
// - not here (porter reports them and hands them to the agent with a recipe):
//   mipmapped arrays (tex*Lod/tex*Grad read level 0, which is what CUDA does for textures without mipmaps),
//   tex2Dgather, driver-API texture references, arrays shared with graphics interop, anisotropic filtering.
// - texture references (`texture<T, dim, mode> tex;`, removed in CUDA 12, common in older code) become
//   `static __device__ porter_tex_ref<T, dim, mode> tex;`: host code sets CUDA's fields on the host copy, a bind
//   (porter_bind_texture*, from cudaBindTexture, cudaBindTexture2D, cudaBindTextureToArray) makes a texture
//   object from them and copies the reference to the device synchronously; fields changed later take effect at
//   the next bind, as in CUDA. The offset a bind returns is always 0 (plain memory needs no alignment). A
//   reference declared in a header gets one copy per translation unit, bound separately (CUDA: one per program).
// Define PORTER_TEXTURE_MATH_ONLY to compile just the addressing/filtering arithmetic (host C++, no HIP).
#ifndef PORTER_TEXTURE_H
#define PORTER_TEXTURE_H

#ifdef PORTER_TEXTURE_MATH_ONLY
#include <math.h>
#include <string.h>
#define PORTER_TEX_HD
#else
#include <hip/hip_runtime.h>
#include <new>
#include <climits>
#include <cstring>
#define PORTER_TEX_HD __host__ __device__
#endif

namespace porter_tex {

enum { address_wrap = 0, address_clamp = 1, address_mirror = 2, address_border = 3 };  // = hipTextureAddressMode
enum { kind_signed = 0, kind_unsigned = 1, kind_float = 2 };  // = hipChannelFormatKind

struct f4 {
    float x, y, z, w;
};

// Everything a sample needs, by value: what porter_tex_object_t carries to the kernel.
struct desc {
    const unsigned char* data;  // first texel
    unsigned long long pitch;   // bytes from one row to the next
    unsigned long long slice;   // bytes from one 2D slice to the next
    int width, height, depth;   // texels (1 for unused dimensions)
    int dims;                   // 1, 2 or 3
    int channels;               // 1, 2 or 4
    int channel_bytes;          // 1, 2 or 4
    int kind;                   // kind_signed, kind_unsigned, kind_float
    int address[3];             // address mode per axis
    int linear;                 // linear filtering
    int normalized_coords;
    int read_normalized;        // hipReadModeNormalizedFloat
    int srgb;
    f4 border;                  // in the texel format, read as floats
    int layers;                 // a layered array's layers (slices of `slice` bytes); 0: not layered
};

PORTER_TEX_HD inline float frac(float x) { return x - floorf(x); }

// texel-space coordinate of x on an axis of n texels
PORTER_TEX_HD inline float to_texel_space(float x, int n, int mode, int normalized) {
    if (!normalized) return x;
    if (mode == address_wrap) x = frac(x);
    else if (mode == address_mirror) {
        const float whole = floorf(x);
        const float f = x - whole;
        x = (static_cast<long long>(whole) % 2 == 0) ? f : 1.0f - f;
    }
    return x * static_cast<float>(n);
}

// the texel index i addresses on an axis of n texels; false: outside (border mode)
PORTER_TEX_HD inline bool address_index(int& i, int n, int mode, int normalized) {
    if (mode == address_border) return i >= 0 && i < n;
    if (normalized && mode == address_wrap) {
        i %= n;
        if (i < 0) i += n;
        return true;
    }
    if (normalized && mode == address_mirror) {
        int m = i % (2 * n);
        if (m < 0) m += 2 * n;
        i = m < n ? m : 2 * n - 1 - m;
        return true;
    }
    i = i < 0 ? 0 : (i >= n ? n - 1 : i);  // clamp (and wrap/mirror on unnormalized coordinates, as CUDA)
    return true;
}

PORTER_TEX_HD inline float filter_weight(float a) {
#ifdef PORTER_TEXTURE_8BIT_WEIGHTS
    return rintf(a * 256.0f) * (1.0f / 256.0f);
#else
    return a;
#endif
}

PORTER_TEX_HD inline float half_to_float(unsigned short h) {
    const unsigned int sign = (h >> 15) & 1u, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    float magnitude;
    if (exponent == 0) magnitude = ldexpf(static_cast<float>(mantissa), -24);
    else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;
    else magnitude = ldexpf(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    return sign ? -magnitude : magnitude;
}

PORTER_TEX_HD inline float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

PORTER_TEX_HD inline float channel(const desc& d, const unsigned char* p, bool filtering) {
    if (d.kind == kind_float) {
        if (d.channel_bytes == 2) {
            unsigned short h;
            memcpy(&h, p, 2);
            return half_to_float(h);
        }
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (d.kind == kind_unsigned) {
        if (d.channel_bytes == 1) return d.read_normalized ? p[0] / 255.0f : static_cast<float>(p[0]);
        if (d.channel_bytes == 2) {
            unsigned short v;
            memcpy(&v, p, 2);
            return d.read_normalized ? v / 65535.0f : static_cast<float>(v);
        }
        unsigned int v;
        memcpy(&v, p, 4);
        return static_cast<float>(v);
    }
    // signed normalized: the most negative value reads as -1; filtering blends it unclamped (as the H200 does)
    if (d.channel_bytes == 1) {
        const float v = static_cast<signed char>(p[0]);
        return d.read_normalized ? (filtering ? v / 127.0f : fmaxf(v / 127.0f, -1.0f)) : v;
    }
    if (d.channel_bytes == 2) {
        short v;
        memcpy(&v, p, 2);
        return d.read_normalized ? (filtering ? v / 32767.0f : fmaxf(v / 32767.0f, -1.0f)) : static_cast<float>(v);
    }
    int v;
    memcpy(&v, p, 4);
    return static_cast<float>(v);
}

PORTER_TEX_HD inline const unsigned char* texel_address(const desc& d, int x, int y, int z) {
    return d.data + static_cast<unsigned long long>(z) * d.slice + static_cast<unsigned long long>(y) * d.pitch
           + static_cast<unsigned long long>(x) * d.channels * d.channel_bytes;
}

// the texel at valid indices, as floats (read mode applied)
PORTER_TEX_HD inline f4 texel(const desc& d, int x, int y, int z, bool filtering = false) {
    const unsigned char* p = texel_address(d, x, y, z);
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < d.channels; ++k) c[k] = channel(d, p + k * d.channel_bytes, filtering);
    if (d.srgb && d.read_normalized && d.channel_bytes == 1)
        for (int k = 0; k < 3 && k < d.channels; ++k) c[k] = srgb_to_linear(c[k]);
    const f4 v = {c[0], c[1], c[2], c[3]};
    return v;
}

// the border colour in the texel format (what a texel of that colour would read as)
PORTER_TEX_HD inline float border_in_format(const desc& d, float c) {
    if (d.read_normalized) {
        if (d.kind == kind_unsigned) {
            const float steps = d.channel_bytes == 1 ? 255.0f : 65535.0f;
            return floorf(fminf(fmaxf(c, 0.0f), 1.0f) * steps) / steps;
        }
        const float steps = d.channel_bytes == 1 ? 127.0f : 32767.0f;
        const float q = fminf(fmaxf(c, -1.0f), 1.0f) * steps;
        return (q < 0.0f ? ceilf(q) : floorf(q)) / steps;
    }
    return c;
}

// the texel indices point sampling reads; false: the border colour
PORTER_TEX_HD inline bool point_index(const desc& d, float x, float y, float z, int* index) {
    const float at[3] = {x, y, z};
    const int size[3] = {d.width, d.height, d.depth};
    for (int axis = 0; axis < 3; ++axis) {
        if (axis >= d.dims) {
            index[axis] = 0;
            continue;
        }
        const float u = to_texel_space(at[axis], size[axis], d.address[axis], d.normalized_coords);
        int i = static_cast<int>(floorf(u));
        if (!address_index(i, size[axis], d.address[axis], d.normalized_coords)) return false;
        index[axis] = i;
    }
    return true;
}

// a sample as CUDA's tex1D/tex2D/tex3D returns it for float results
PORTER_TEX_HD inline f4 sample(const desc& d, float x, float y, float z) {
    if (!d.linear) {
        int i[3];
        return point_index(d, x, y, z, i) ? texel(d, i[0], i[1], i[2]) : d.border;
    }
    const float at[3] = {x, y, z};
    const int size[3] = {d.width, d.height, d.depth};
    int base[3] = {0, 0, 0};
    float weight[3] = {0.0f, 0.0f, 0.0f};
    for (int axis = 0; axis < d.dims; ++axis) {
        const float u = to_texel_space(at[axis], size[axis], d.address[axis], d.normalized_coords) - 0.5f;
        const float whole = floorf(u);
        base[axis] = static_cast<int>(whole);
        weight[axis] = filter_weight(u - whole);
    }
    f4 sum = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int corner = 0; corner < (1 << d.dims); ++corner) {
        float w = 1.0f;
        int i[3] = {0, 0, 0};
        bool inside = true;
        for (int axis = 0; axis < d.dims; ++axis) {
            const int step = (corner >> axis) & 1;
            w *= step ? weight[axis] : 1.0f - weight[axis];
            i[axis] = base[axis] + step;
            inside = address_index(i[axis], size[axis], d.address[axis], d.normalized_coords) && inside;
        }
        const f4 v = inside ? texel(d, i[0], i[1], i[2], true) : d.border;
        sum.x += w * v.x;
        sum.y += w * v.y;
        sum.z += w * v.z;
        sum.w += w * v.w;
    }
    if (d.read_normalized && d.kind == kind_signed) {  // blended unclamped, then clamped (the H200)
        sum.x = fmaxf(sum.x, -1.0f);
        sum.y = fmaxf(sum.y, -1.0f);
        sum.z = fmaxf(sum.z, -1.0f);
        sum.w = fmaxf(sum.w, -1.0f);
    }
    return sum;
}

// tex1Dfetch: integer index, zero outside the buffer
PORTER_TEX_HD inline f4 fetch(const desc& d, int i) {
    if (i < 0 || i >= d.width) {
        const f4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
        return zero;
    }
    return texel(d, i, 0, 0);
}

}  // namespace porter_tex

#ifndef PORTER_TEXTURE_MATH_ONLY
// ---- host side: arrays, resource descriptions, texture and surface objects ----------------------------------

// stands in for hipArray: a pitched allocation and its shape
struct porter_tex_array {
    void* data;
    size_t pitch;                  // bytes per row
    size_t width, height, depth;   // CUDA's convention: height 0 = 1D, depth 0 = 2D
    hipChannelFormatDesc desc;
    unsigned int flags;
};
typedef porter_tex_array* porter_tex_array_t;
typedef const porter_tex_array* porter_tex_array_const_t;

// hipResourceDesc with porter's arrays (same fields)
struct porter_tex_resource_desc {
    enum hipResourceType resType;
    union {
        struct {
            porter_tex_array_t array;
        } array;
        struct {
            hipMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void* devPtr;
            hipChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void* devPtr;
            hipChannelFormatDesc desc;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
    } res;
};

// hipMemcpy3DParms with porter's arrays (same fields)
struct porter_tex_memcpy3d_parms {
    porter_tex_array_t srcArray;
    hipPos srcPos;
    hipPitchedPtr srcPtr;
    porter_tex_array_t dstArray;
    hipPos dstPos;
    hipPitchedPtr dstPtr;
    hipExtent extent;
    hipMemcpyKind kind;
};

// a texture object: the descriptor itself, passed to kernels by value
struct porter_tex_object {
    porter_tex::desc d;
    porter_tex_object() = default;
    constexpr PORTER_TEX_HD porter_tex_object(int) : d() {}  // `cudaTextureObject_t tex = 0;`
    PORTER_TEX_HD explicit operator bool() const { return d.data != nullptr; }
    PORTER_TEX_HD friend bool operator==(const porter_tex_object& t, int) { return t.d.data == nullptr; }
    PORTER_TEX_HD friend bool operator!=(const porter_tex_object& t, int) { return t.d.data != nullptr; }
};
typedef porter_tex_object porter_tex_object_t;

struct porter_surf_object {
    unsigned char* data;
    unsigned long long pitch, slice;
    int width_bytes, height, depth;
    porter_surf_object() = default;
    PORTER_TEX_HD porter_surf_object(int) : data(nullptr), pitch(0), slice(0), width_bytes(0), height(0), depth(0) {}
    PORTER_TEX_HD explicit operator bool() const { return data != nullptr; }
};
typedef porter_surf_object porter_surf_object_t;

namespace porter_tex {
inline int format_of(const hipChannelFormatDesc& f, int& channels, int& channel_bytes) {
    const int bits[4] = {f.x, f.y, f.z, f.w};
    channels = 0;
    for (int k = 0; k < 4; ++k) {
        if (bits[k] == 0) break;
        if (bits[k] != f.x) return -1;  // mixed channel sizes (5-6-5 and the like): not supported
        ++channels;
    }
    channel_bytes = f.x / 8;
    if (channels == 0 || channels == 3 || (channel_bytes != 1 && channel_bytes != 2 && channel_bytes != 4)) return -1;
    return static_cast<int>(f.f);
}
inline size_t element_size(const hipChannelFormatDesc& f) {
    return static_cast<size_t>((f.x + f.y + f.z + f.w) / 8);
}
inline hipError_t array_pointer(porter_tex_array_const_t a, hipPitchedPtr& p, size_t& elem) {
    if (a == nullptr || a->data == nullptr) return hipErrorInvalidValue;
    elem = element_size(a->desc);
    p = make_hipPitchedPtr(a->data, a->pitch, a->width * elem, a->height ? a->height : 1);
    return hipSuccess;
}
}  // namespace porter_tex

inline hipError_t porter_tex_malloc_3d_array(porter_tex_array_t* out, const hipChannelFormatDesc* desc, hipExtent extent,
                                             unsigned int flags = 0) {
    if (out == nullptr || desc == nullptr || extent.width == 0) return hipErrorInvalidValue;
    int channels = 0, channel_bytes = 0;
    if (porter_tex::format_of(*desc, channels, channel_bytes) < 0) return hipErrorNotSupported;
    porter_tex_array* a = new (std::nothrow) porter_tex_array();
    if (a == nullptr) return hipErrorOutOfMemory;
    a->width = extent.width;
    a->height = extent.height;
    a->depth = extent.depth;
    a->desc = *desc;
    a->flags = flags;
    const size_t rows = (extent.height ? extent.height : 1) * (extent.depth ? extent.depth : 1);
    hipError_t e = hipMallocPitch(&a->data, &a->pitch, extent.width * porter_tex::element_size(*desc), rows);
    if (e != hipSuccess) {
        delete a;
        return e;
    }
    *out = a;
    return hipSuccess;
}

inline hipError_t porter_tex_malloc_array(porter_tex_array_t* out, const hipChannelFormatDesc* desc, size_t width,
                                          size_t height = 0, unsigned int flags = 0) {
    return porter_tex_malloc_3d_array(out, desc, make_hipExtent(width, height, 0), flags);
}

inline hipError_t porter_tex_free_array(porter_tex_array_t a) {
    if (a == nullptr) return hipSuccess;
    hipError_t e = hipFree(a->data);
    delete a;
    return e;
}

inline hipError_t porter_tex_get_channel_desc(hipChannelFormatDesc* desc, porter_tex_array_const_t a) {
    if (desc == nullptr || a == nullptr) return hipErrorInvalidValue;
    *desc = a->desc;
    return hipSuccess;
}

inline hipError_t porter_tex_array_get_info(hipChannelFormatDesc* desc, hipExtent* extent, unsigned int* flags,
                                            porter_tex_array_const_t a) {
    if (a == nullptr) return hipErrorInvalidValue;
    if (desc) *desc = a->desc;
    if (extent) *extent = make_hipExtent(a->width, a->height, a->depth);
    if (flags) *flags = a->flags;
    return hipSuccess;
}

// offsets into an array: wOffset in bytes, hOffset in rows, as CUDA's cudaMemcpy2DToArray
inline hipError_t porter_tex_memcpy_2d_to_array_async(porter_tex_array_t dst, size_t wOffset, size_t hOffset,
                                                      const void* src, size_t spitch, size_t width, size_t height,
                                                      hipMemcpyKind kind, hipStream_t stream = 0) {
    if (dst == nullptr) return hipErrorInvalidValue;
    char* at = static_cast<char*>(dst->data) + hOffset * dst->pitch + wOffset;
    return hipMemcpy2DAsync(at, dst->pitch, src, spitch, width, height, kind, stream);
}
inline hipError_t porter_tex_memcpy_2d_to_array(porter_tex_array_t dst, size_t wOffset, size_t hOffset, const void* src,
                                                size_t spitch, size_t width, size_t height, hipMemcpyKind kind) {
    if (dst == nullptr) return hipErrorInvalidValue;
    char* at = static_cast<char*>(dst->data) + hOffset * dst->pitch + wOffset;
    return hipMemcpy2D(at, dst->pitch, src, spitch, width, height, kind);
}
inline hipError_t porter_tex_memcpy_2d_from_array_async(void* dst, size_t dpitch, porter_tex_array_const_t src,
                                                        size_t wOffset, size_t hOffset, size_t width, size_t height,
                                                        hipMemcpyKind kind, hipStream_t stream = 0) {
    if (src == nullptr) return hipErrorInvalidValue;
    const char* at = static_cast<const char*>(src->data) + hOffset * src->pitch + wOffset;
    return hipMemcpy2DAsync(dst, dpitch, at, src->pitch, width, height, kind, stream);
}
inline hipError_t porter_tex_memcpy_2d_from_array(void* dst, size_t dpitch, porter_tex_array_const_t src,
                                                  size_t wOffset, size_t hOffset, size_t width, size_t height,
                                                  hipMemcpyKind kind) {
    if (src == nullptr) return hipErrorInvalidValue;
    const char* at = static_cast<const char*>(src->data) + hOffset * src->pitch + wOffset;
    return hipMemcpy2D(dst, dpitch, at, src->pitch, width, height, kind);
}
inline hipError_t porter_tex_memcpy_2d_array_to_array(porter_tex_array_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                                      porter_tex_array_const_t src, size_t wOffsetSrc,
                                                      size_t hOffsetSrc, size_t width, size_t height,
                                                      hipMemcpyKind kind = hipMemcpyDeviceToDevice) {
    if (dst == nullptr || src == nullptr) return hipErrorInvalidValue;
    char* to = static_cast<char*>(dst->data) + hOffsetDst * dst->pitch + wOffsetDst;
    const char* from = static_cast<const char*>(src->data) + hOffsetSrc * src->pitch + wOffsetSrc;
    return hipMemcpy2D(to, dst->pitch, from, src->pitch, width, height, kind);
}

// cudaMemcpyToArray/FromArray (deprecated in CUDA): `count` bytes from (wOffset, hOffset) on, row after row
inline hipError_t porter_tex_memcpy_to_array_async(porter_tex_array_t dst, size_t wOffset, size_t hOffset,
                                                   const void* src, size_t count, hipMemcpyKind kind,
                                                   hipStream_t stream = 0) {
    if (dst == nullptr) return hipErrorInvalidValue;
    const size_t row = dst->width * porter_tex::element_size(dst->desc);
    const char* from = static_cast<const char*>(src);
    while (count > 0) {
        const size_t n = count < row - wOffset ? count : row - wOffset;
        hipError_t e = hipMemcpyAsync(static_cast<char*>(dst->data) + hOffset * dst->pitch + wOffset, from, n, kind,
                                      stream);
        if (e != hipSuccess) return e;
        from += n;
        count -= n;
        wOffset = 0;
        ++hOffset;
    }
    return hipSuccess;
}
inline hipError_t porter_tex_memcpy_to_array(porter_tex_array_t dst, size_t wOffset, size_t hOffset, const void* src,
                                             size_t count, hipMemcpyKind kind) {
    hipError_t e = porter_tex_memcpy_to_array_async(dst, wOffset, hOffset, src, count, kind, 0);
    return e == hipSuccess ? hipStreamSynchronize(0) : e;
}
inline hipError_t porter_tex_memcpy_from_array_async(void* dst, porter_tex_array_const_t src, size_t wOffset,
                                                     size_t hOffset, size_t count, hipMemcpyKind kind,
                                                     hipStream_t stream = 0) {
    if (src == nullptr) return hipErrorInvalidValue;
    const size_t row = src->width * porter_tex::element_size(src->desc);
    char* to = static_cast<char*>(dst);
    while (count > 0) {
        const size_t n = count < row - wOffset ? count : row - wOffset;
        hipError_t e = hipMemcpyAsync(to, static_cast<const char*>(src->data) + hOffset * src->pitch + wOffset, n,
                                      kind, stream);
        if (e != hipSuccess) return e;
        to += n;
        count -= n;
        wOffset = 0;
        ++hOffset;
    }
    return hipSuccess;
}
inline hipError_t porter_tex_memcpy_from_array(void* dst, porter_tex_array_const_t src, size_t wOffset, size_t hOffset,
                                               size_t count, hipMemcpyKind kind) {
    hipError_t e = porter_tex_memcpy_from_array_async(dst, src, wOffset, hOffset, count, kind, 0);
    return e == hipSuccess ? hipStreamSynchronize(0) : e;
}

namespace porter_tex {
// porter's parameters as HIP's: with an array on either side, extent.width and pos.x count elements, as in CUDA
inline hipError_t hip_parms(const porter_tex_memcpy3d_parms* p, hipMemcpy3DParms* q) {
    if (p == nullptr) return hipErrorInvalidValue;
    *q = hipMemcpy3DParms{};
    q->srcPos = p->srcPos;
    q->dstPos = p->dstPos;
    q->srcPtr = p->srcPtr;
    q->dstPtr = p->dstPtr;
    q->extent = p->extent;
    q->kind = p->kind;
    size_t elem = 1;
    if (p->srcArray != nullptr) {
        hipError_t e = array_pointer(p->srcArray, q->srcPtr, elem);
        if (e != hipSuccess) return e;
    }
    if (p->dstArray != nullptr) {
        hipError_t e = array_pointer(p->dstArray, q->dstPtr, elem);
        if (e != hipSuccess) return e;
    }
    if (p->srcArray != nullptr || p->dstArray != nullptr) {
        q->extent.width *= elem;
        q->srcPos.x *= elem;
        q->dstPos.x *= elem;
    }
    q->extent.height = q->extent.height ? q->extent.height : 1;
    q->extent.depth = q->extent.depth ? q->extent.depth : 1;
    return hipSuccess;
}
}  // namespace porter_tex

// cudaMemcpy3D: with an array on either side, extent.width and pos.x count elements, as in CUDA
inline hipError_t porter_tex_memcpy_3d_async(const porter_tex_memcpy3d_parms* p, hipStream_t stream = 0) {
    hipMemcpy3DParms q;
    hipError_t e = porter_tex::hip_parms(p, &q);
    return e == hipSuccess ? hipMemcpy3DAsync(&q, stream) : e;
}

// graph memcpy nodes given porter's parameters (cudaMemcpy3DParms is porter's type on these targets): HIP's calls
// with the parameters converted (arrays become their pitched memory); C++ overloads beside HIP's C functions
inline hipError_t hipGraphAddMemcpyNode(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* deps,
                                        size_t count, const porter_tex_memcpy3d_parms* p) {
    hipMemcpy3DParms q;
    hipError_t e = porter_tex::hip_parms(p, &q);
    return e == hipSuccess ? hipGraphAddMemcpyNode(node, graph, deps, count, &q) : e;
}
inline hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node, const porter_tex_memcpy3d_parms* p) {
    hipMemcpy3DParms q;
    hipError_t e = porter_tex::hip_parms(p, &q);
    return e == hipSuccess ? hipGraphMemcpyNodeSetParams(node, &q) : e;
}
inline hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t exec, hipGraphNode_t node,
                                                  const porter_tex_memcpy3d_parms* p) {
    hipMemcpy3DParms q;
    hipError_t e = porter_tex::hip_parms(p, &q);
    return e == hipSuccess ? hipGraphExecMemcpyNodeSetParams(exec, node, &q) : e;
}
inline hipError_t porter_tex_memcpy_3d(const porter_tex_memcpy3d_parms* p) {
    hipError_t e = porter_tex_memcpy_3d_async(p, 0);
    return e == hipSuccess ? hipStreamSynchronize(0) : e;
}

inline hipError_t porter_tex_create_object(porter_tex_object_t* out, const porter_tex_resource_desc* res,
                                           const hipTextureDesc* td, const void* /*view: not supported, ignored*/) {
    if (out == nullptr || res == nullptr || td == nullptr) return hipErrorInvalidValue;
    porter_tex::desc d = {};
    hipChannelFormatDesc format;
    if (res->resType == hipResourceTypeArray) {
        porter_tex_array_const_t a = res->res.array.array;
        if (a == nullptr) return hipErrorInvalidValue;
        format = a->desc;
        d.data = static_cast<const unsigned char*>(a->data);
        d.pitch = a->pitch;
        d.width = static_cast<int>(a->width);
        d.height = a->height ? static_cast<int>(a->height) : 1;
        d.depth = a->depth ? static_cast<int>(a->depth) : 1;
        d.slice = static_cast<unsigned long long>(a->pitch) * d.height;
        d.dims = a->depth ? 3 : (a->height ? 2 : 1);
        if (a->flags & (hipArrayLayered | hipArrayCubemap)) {  // layers (and cubemap faces) stacked as slices
            d.layers = d.depth;
            d.depth = 1;
            d.dims = a->height ? 2 : 1;
        }
    } else if (res->resType == hipResourceTypePitch2D) {
        format = res->res.pitch2D.desc;
        d.data = static_cast<const unsigned char*>(res->res.pitch2D.devPtr);
        d.pitch = res->res.pitch2D.pitchInBytes;
        d.width = static_cast<int>(res->res.pitch2D.width);
        d.height = static_cast<int>(res->res.pitch2D.height);
        d.depth = 1;
        d.dims = 2;
    } else if (res->resType == hipResourceTypeLinear) {
        format = res->res.linear.desc;
        d.data = static_cast<const unsigned char*>(res->res.linear.devPtr);
        const size_t elem = porter_tex::element_size(format);
        d.width = elem ? static_cast<int>(res->res.linear.sizeInBytes / elem) : 0;
        d.pitch = res->res.linear.sizeInBytes;
        d.height = d.depth = 1;
        d.dims = 1;
    } else {
        return hipErrorNotSupported;  // mipmapped arrays
    }
    const int kind = porter_tex::format_of(format, d.channels, d.channel_bytes);
    if (kind < 0 || kind > porter_tex::kind_float || d.data == nullptr) return hipErrorNotSupported;
    d.kind = kind;
    for (int axis = 0; axis < 3; ++axis) d.address[axis] = static_cast<int>(td->addressMode[axis]);
    d.linear = td->filterMode == hipFilterModeLinear;
    d.normalized_coords = td->normalizedCoords;
    d.read_normalized = td->readMode == hipReadModeNormalizedFloat && kind != porter_tex::kind_float
                        && d.channel_bytes < 4;
    d.srgb = td->sRGB;
    float border[4];
    for (int k = 0; k < 4; ++k) border[k] = porter_tex::border_in_format(d, td->borderColor[k]);
    const porter_tex::f4 b = {border[0], border[1], border[2], border[3]};
    d.border = b;
    out->d = d;
    return hipSuccess;
}
inline hipError_t porter_tex_destroy_object(porter_tex_object_t) { return hipSuccess; }  // owns no memory

inline hipError_t porter_surf_create_object(porter_surf_object_t* out, const porter_tex_resource_desc* res) {
    if (out == nullptr || res == nullptr || res->resType != hipResourceTypeArray || res->res.array.array == nullptr)
        return hipErrorInvalidValue;
    porter_tex_array_const_t a = res->res.array.array;
    porter_surf_object s(0);
    s.data = static_cast<unsigned char*>(a->data);
    s.pitch = a->pitch;
    s.width_bytes = static_cast<int>(a->width * porter_tex::element_size(a->desc));
    s.height = a->height ? static_cast<int>(a->height) : 1;
    s.depth = a->depth ? static_cast<int>(a->depth) : 1;
    s.slice = static_cast<unsigned long long>(a->pitch) * s.height;
    *out = s;
    return hipSuccess;
}
inline hipError_t porter_surf_destroy_object(porter_surf_object_t) { return hipSuccess; }

// ---- the driver API's arrays, copies and texture objects (cuArrayCreate, cuMemcpy2D, cuTexObjectCreate) -------
// CUDA_RESOURCE_DESC and CUDA_MEMCPY2D with porter's arrays (CUDA's field names); HIP_ARRAY_DESCRIPTOR,
// HIP_ARRAY3D_DESCRIPTOR and HIP_TEXTURE_DESC are HIP's own. Texture objects are porter_tex_object_t as above.
struct porter_cu_resource_desc {
    HIPresourcetype resType;
    union {
        struct {
            porter_tex_array_t hArray;
        } array;
        struct {
            hipMipmappedArray_t hMipmappedArray;
        } mipmap;
        struct {
            hipDeviceptr_t devPtr;
            hipArray_Format format;
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            hipDeviceptr_t devPtr;
            hipArray_Format format;
            unsigned int numChannels;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};
typedef porter_cu_resource_desc porter_cu_resource_desc_t;

struct porter_cu_memcpy2d {
    size_t srcXInBytes, srcY;
    hipMemoryType srcMemoryType;
    const void* srcHost;
    hipDeviceptr_t srcDevice;
    porter_tex_array_t srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    hipMemoryType dstMemoryType;
    void* dstHost;
    hipDeviceptr_t dstDevice;
    porter_tex_array_t dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
};

namespace porter_tex {
// hipArray_Format and a channel count as the channel description the runtime API uses
inline hipChannelFormatDesc channels_of(hipArray_Format format, unsigned int count) {
    int bits = 32;
    hipChannelFormatKind kind = hipChannelFormatKindFloat;
    switch (format) {
        case HIP_AD_FORMAT_UNSIGNED_INT8: bits = 8, kind = hipChannelFormatKindUnsigned; break;
        case HIP_AD_FORMAT_UNSIGNED_INT16: bits = 16, kind = hipChannelFormatKindUnsigned; break;
        case HIP_AD_FORMAT_UNSIGNED_INT32: bits = 32, kind = hipChannelFormatKindUnsigned; break;
        case HIP_AD_FORMAT_SIGNED_INT8: bits = 8, kind = hipChannelFormatKindSigned; break;
        case HIP_AD_FORMAT_SIGNED_INT16: bits = 16, kind = hipChannelFormatKindSigned; break;
        case HIP_AD_FORMAT_SIGNED_INT32: bits = 32, kind = hipChannelFormatKindSigned; break;
        case HIP_AD_FORMAT_HALF: bits = 16, kind = hipChannelFormatKindFloat; break;
        default: break;  // HIP_AD_FORMAT_FLOAT
    }
    return hipCreateChannelDesc(bits, count > 1 ? bits : 0, count > 2 ? bits : 0, count > 3 ? bits : 0, kind);
}
// the inverse: the driver API's format and channel count of a runtime channel description
inline void format_of(const hipChannelFormatDesc& c, hipArray_Format* format, unsigned int* count) {
    *count = (c.x != 0) + (c.y != 0) + (c.z != 0) + (c.w != 0);
    const bool is_signed = c.f == hipChannelFormatKindSigned;
    if (c.f == hipChannelFormatKindFloat) {
        *format = c.x == 16 ? HIP_AD_FORMAT_HALF : HIP_AD_FORMAT_FLOAT;
    } else if (c.x == 8) {
        *format = is_signed ? HIP_AD_FORMAT_SIGNED_INT8 : HIP_AD_FORMAT_UNSIGNED_INT8;
    } else if (c.x == 16) {
        *format = is_signed ? HIP_AD_FORMAT_SIGNED_INT16 : HIP_AD_FORMAT_UNSIGNED_INT16;
    } else {
        *format = is_signed ? HIP_AD_FORMAT_SIGNED_INT32 : HIP_AD_FORMAT_UNSIGNED_INT32;
    }
}
inline const unsigned char* copy_source(const porter_cu_memcpy2d* p) {
    switch (p->srcMemoryType) {
        case hipMemoryTypeHost: return static_cast<const unsigned char*>(p->srcHost);
        case hipMemoryTypeArray: return p->srcArray ? static_cast<const unsigned char*>(p->srcArray->data) : nullptr;
        default: return reinterpret_cast<const unsigned char*>(p->srcDevice);  // device, unified
    }
}
inline unsigned char* copy_target(const porter_cu_memcpy2d* p) {
    switch (p->dstMemoryType) {
        case hipMemoryTypeHost: return static_cast<unsigned char*>(p->dstHost);
        case hipMemoryTypeArray: return p->dstArray ? static_cast<unsigned char*>(p->dstArray->data) : nullptr;
        default: return reinterpret_cast<unsigned char*>(p->dstDevice);
    }
}
}  // namespace porter_tex

inline hipError_t porter_cu_array_create(porter_tex_array_t* out, const HIP_ARRAY_DESCRIPTOR* d) {
    if (d == nullptr || d->NumChannels < 1 || d->NumChannels > 4) return hipErrorInvalidValue;
    const hipChannelFormatDesc c = porter_tex::channels_of(d->Format, d->NumChannels);
    return porter_tex_malloc_array(out, &c, d->Width, d->Height);
}
inline hipError_t porter_cu_array_3d_create(porter_tex_array_t* out, const HIP_ARRAY3D_DESCRIPTOR* d) {
    if (d == nullptr || d->NumChannels < 1 || d->NumChannels > 4) return hipErrorInvalidValue;
    const hipChannelFormatDesc c = porter_tex::channels_of(d->Format, d->NumChannels);
    return porter_tex_malloc_3d_array(out, &c, make_hipExtent(d->Width, d->Height, d->Depth), d->Flags);
}
inline hipError_t porter_cu_array_destroy(porter_tex_array_t a) { return porter_tex_free_array(a); }
// cuArrayGetDescriptor / cuArray3DGetDescriptor: the description an array was made with (0 for the heights and
// depths CUDA leaves 0)
inline hipError_t porter_cu_array_get_descriptor(HIP_ARRAY_DESCRIPTOR* d, porter_tex_array_t a) {
    if (d == nullptr || a == nullptr) return hipErrorInvalidValue;
    porter_tex::format_of(a->desc, &d->Format, &d->NumChannels);
    d->Width = a->width;
    d->Height = a->height;
    return hipSuccess;
}
inline hipError_t porter_cu_array_3d_get_descriptor(HIP_ARRAY3D_DESCRIPTOR* d, porter_tex_array_t a) {
    if (d == nullptr || a == nullptr) return hipErrorInvalidValue;
    porter_tex::format_of(a->desc, &d->Format, &d->NumChannels);
    d->Width = a->width;
    d->Height = a->height;
    d->Depth = a->depth;
    d->Flags = a->flags;
    return hipSuccess;
}
// cuMemcpy2D: an array's rows are its pitch apart, so every memory type is a pitched 2D copy (hipMemcpyDefault:
// ROCm's unified addressing tells host from device)
inline hipError_t porter_cu_memcpy_2d_async(const porter_cu_memcpy2d* p, hipStream_t stream) {
    if (p == nullptr) return hipErrorInvalidValue;
    const unsigned char* src = porter_tex::copy_source(p);
    unsigned char* dst = porter_tex::copy_target(p);
    if (src == nullptr || dst == nullptr) return hipErrorInvalidValue;
    const size_t spitch = p->srcMemoryType == hipMemoryTypeArray ? p->srcArray->pitch : p->srcPitch;
    const size_t dpitch = p->dstMemoryType == hipMemoryTypeArray ? p->dstArray->pitch : p->dstPitch;
    src += p->srcY * spitch + p->srcXInBytes;
    dst += p->dstY * dpitch + p->dstXInBytes;
    return hipMemcpy2DAsync(dst, dpitch, src, spitch, p->WidthInBytes, p->Height, hipMemcpyDefault, stream);
}
inline hipError_t porter_cu_memcpy_2d(const porter_cu_memcpy2d* p) {
    const hipError_t e = porter_cu_memcpy_2d_async(p, nullptr);
    return e != hipSuccess ? e : hipStreamSynchronize(nullptr);
}
// cuTexObjectCreate: the driver API's descriptions as the runtime API's. Integer texels are read as normalized
// floats unless HIP_TRSF_READ_AS_INTEGER is set (the driver API's default is the runtime API's opposite);
// HIP_TRSF_SRGB and resource views are not supported (hipErrorNotSupported)
inline hipError_t porter_cu_tex_object_create(porter_tex_object_t* out, const porter_cu_resource_desc* r,
                                              const HIP_TEXTURE_DESC* t, const void* view) {
    if (out == nullptr || r == nullptr || t == nullptr) return hipErrorInvalidValue;
    if (view != nullptr || (t->flags & HIP_TRSF_SRGB)) return hipErrorNotSupported;
    porter_tex_resource_desc res = {};
    hipChannelFormatDesc channels = {};
    switch (r->resType) {
        case HIP_RESOURCE_TYPE_ARRAY:
            res.resType = hipResourceTypeArray, res.res.array.array = r->res.array.hArray;
            if (r->res.array.hArray != nullptr) channels = r->res.array.hArray->desc;
            break;
        case HIP_RESOURCE_TYPE_LINEAR:
            channels = porter_tex::channels_of(r->res.linear.format, r->res.linear.numChannels);
            res.resType = hipResourceTypeLinear, res.res.linear.devPtr = reinterpret_cast<void*>(r->res.linear.devPtr);
            res.res.linear.desc = channels, res.res.linear.sizeInBytes = r->res.linear.sizeInBytes;
            break;
        case HIP_RESOURCE_TYPE_PITCH2D:
            channels = porter_tex::channels_of(r->res.pitch2D.format, r->res.pitch2D.numChannels);
            res.resType = hipResourceTypePitch2D;
            res.res.pitch2D.devPtr = reinterpret_cast<void*>(r->res.pitch2D.devPtr), res.res.pitch2D.desc = channels;
            res.res.pitch2D.width = r->res.pitch2D.width, res.res.pitch2D.height = r->res.pitch2D.height;
            res.res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
            break;
        default: return hipErrorNotSupported;  // mipmapped arrays
    }
    hipTextureDesc td = {};
    for (int i = 0; i < 3; ++i) td.addressMode[i] = static_cast<hipTextureAddressMode>(t->addressMode[i]);
    td.filterMode = static_cast<hipTextureFilterMode>(t->filterMode);
    td.normalizedCoords = (t->flags & HIP_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
    const bool integer_texels = channels.f == hipChannelFormatKindSigned || channels.f == hipChannelFormatKindUnsigned;
    td.readMode = integer_texels && !(t->flags & HIP_TRSF_READ_AS_INTEGER) ? hipReadModeNormalizedFloat
                                                                             : hipReadModeElementType;
    for (int i = 0; i < 4; ++i) td.borderColor[i] = t->borderColor[i];
    td.maxAnisotropy = t->maxAnisotropy;
    return porter_tex_create_object(out, &res, &td, nullptr);
}

// ---- device side: the tex*/surf* functions ---------------------------------------------------------------------
namespace porter_tex {
// float results (float, float1, float2, float4) go through sample(); everything else reads the texel as T
template <class T> struct float_result { static const bool value = false; };
template <> struct float_result<float> { static const bool value = true; };
template <> struct float_result<float1> { static const bool value = true; };
template <> struct float_result<float2> { static const bool value = true; };
template <> struct float_result<float4> { static const bool value = true; };

template <class T> __device__ inline T from_f4(const f4& v, T*);
template <> __device__ inline float from_f4(const f4& v, float*) { return v.x; }
template <> __device__ inline float1 from_f4(const f4& v, float1*) { return make_float1(v.x); }
template <> __device__ inline float2 from_f4(const f4& v, float2*) { return make_float2(v.x, v.y); }
template <> __device__ inline float4 from_f4(const f4& v, float4*) { return make_float4(v.x, v.y, v.z, v.w); }

template <class T, bool F = float_result<T>::value> struct reader {
    __device__ static T at(const desc& d, float x, float y, float z) {
        return from_f4(sample(d, x, y, z), static_cast<T*>(nullptr));
    }
    __device__ static T fetched(const desc& d, int i) { return from_f4(fetch(d, i), static_cast<T*>(nullptr)); }
};
template <class T> struct reader<T, false> {  // element-type reads of integer texels: the texel itself, unfiltered
    __device__ static T load(const desc& d, int x, int y, int z) {
        T v;
        memcpy(&v, texel_address(d, x, y, z), sizeof(T));
        return v;
    }
    __device__ static T at(const desc& d, float x, float y, float z) {
        int i[3];
        if (!point_index(d, x, y, z, i)) return T();  // border: zero (CUDA's colour applies to float reads)
        return load(d, i[0], i[1], i[2]);
    }
    __device__ static T fetched(const desc& d, int i) { return i < 0 || i >= d.width ? T() : load(d, i, 0, 0); }
};
}  // namespace porter_tex

template <class T> __device__ inline T porter_tex1Dfetch(const porter_tex_object_t& t, int x) {
    return porter_tex::reader<T>::fetched(t.d, x);
}
template <class T> __device__ inline T porter_tex1D(const porter_tex_object_t& t, float x) {
    return porter_tex::reader<T>::at(t.d, x, 0.0f, 0.0f);
}
template <class T> __device__ inline T porter_tex2D(const porter_tex_object_t& t, float x, float y) {
    return porter_tex::reader<T>::at(t.d, x, y, 0.0f);
}
template <class T> __device__ inline T porter_tex3D(const porter_tex_object_t& t, float x, float y, float z) {
    return porter_tex::reader<T>::at(t.d, x, y, z);
}
// without mipmaps, a level-of-detail or gradient read is a level-0 read
template <class T> __device__ inline T porter_tex1DLod(const porter_tex_object_t& t, float x, float) {
    return porter_tex1D<T>(t, x);
}
template <class T> __device__ inline T porter_tex2DLod(const porter_tex_object_t& t, float x, float y, float) {
    return porter_tex2D<T>(t, x, y);
}
template <class T> __device__ inline T porter_tex3DLod(const porter_tex_object_t& t, float x, float y, float z, float) {
    return porter_tex3D<T>(t, x, y, z);
}
template <class T> __device__ inline T porter_tex1DGrad(const porter_tex_object_t& t, float x, float, float) {
    return porter_tex1D<T>(t, x);
}
template <class T> __device__ inline T porter_tex2DGrad(const porter_tex_object_t& t, float x, float y, float2, float2) {
    return porter_tex2D<T>(t, x, y);
}
template <class T>
__device__ inline T porter_tex3DGrad(const porter_tex_object_t& t, float x, float y, float z, float4, float4) {
    return porter_tex3D<T>(t, x, y, z);
}
// layered textures: one 1D or 2D layer of a layered array
namespace porter_tex {
__device__ inline desc layer_of(const desc& d, int layer) {
    desc one = d;
    // as the H200 does: the index read as unsigned and clamped to the last layer (so -1 is the last layer)
    const unsigned last = static_cast<unsigned>(d.layers > 0 ? d.layers : 1) - 1u;
    const unsigned index = static_cast<unsigned>(layer) > last ? last : static_cast<unsigned>(layer);
    one.data = d.data + static_cast<unsigned long long>(index) * d.slice;
    one.layers = 0;
    return one;
}
}  // namespace porter_tex
template <class T> __device__ inline T porter_tex1DLayered(const porter_tex_object_t& t, float x, int layer) {
    return porter_tex::reader<T>::at(porter_tex::layer_of(t.d, layer), x, 0.0f, 0.0f);
}
template <class T>
__device__ inline T porter_tex2DLayered(const porter_tex_object_t& t, float x, float y, int layer) {
    return porter_tex::reader<T>::at(porter_tex::layer_of(t.d, layer), x, y, 0.0f);
}
template <class T>
__device__ inline T porter_tex1DLayeredLod(const porter_tex_object_t& t, float x, int layer, float) {
    return porter_tex1DLayered<T>(t, x, layer);
}
template <class T>
__device__ inline T porter_tex2DLayeredLod(const porter_tex_object_t& t, float x, float y, int layer, float) {
    return porter_tex2DLayered<T>(t, x, y, layer);
}
template <class T>
__device__ inline T porter_tex1DLayeredGrad(const porter_tex_object_t& t, float x, int layer, float, float) {
    return porter_tex1DLayered<T>(t, x, layer);
}
template <class T>
__device__ inline T porter_tex2DLayeredGrad(const porter_tex_object_t& t, float x, float y, int layer, float2,
                                            float2) {
    return porter_tex2DLayered<T>(t, x, y, layer);
}
template <class T> __device__ inline void porter_tex1DLayered(T* out, const porter_tex_object_t& t, float x, int layer) {
    *out = porter_tex1DLayered<T>(t, x, layer);
}
template <class T>
__device__ inline void porter_tex2DLayered(T* out, const porter_tex_object_t& t, float x, float y, int layer) {
    *out = porter_tex2DLayered<T>(t, x, y, layer);
}

// cubemaps: the face of the direction's major axis (+x, -x, +y, -y, +z, -z: slices 0..5, then 6 per layer of a
// layered cubemap), ties going to z, then y (as an H200 picks them), sampled at the face coordinates
// ((s / m + 1) / 2, (t / m + 1) / 2) as normalized coordinates whatever the texture's coordinate mode, filtered
// within the face (no filtering across face edges) in the texture's address mode
namespace porter_tex {
__device__ inline int cube_face(float x, float y, float z, float& u, float& v) {
    const float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
    float s, t, m;
    int face;
    if (az >= ax && az >= ay) {
        face = z >= 0.0f ? 4 : 5, m = az, s = z >= 0.0f ? x : -x, t = -y;
    } else if (ay >= ax) {
        face = y >= 0.0f ? 2 : 3, m = ay, s = x, t = y >= 0.0f ? z : -z;
    } else {
        face = x >= 0.0f ? 0 : 1, m = ax, s = x >= 0.0f ? -z : z, t = -y;
    }
    u = (s / m + 1.0f) * 0.5f;
    v = (t / m + 1.0f) * 0.5f;
    return face;
}
template <class T> __device__ inline T cubemap(const desc& d, float x, float y, float z, int layer) {
    float u, v;
    const int face = cube_face(x, y, z, u, v);
    // the layer index read as unsigned and clamped to the last cubemap, as for layered textures
    const unsigned last = static_cast<unsigned>(d.layers >= 6 ? d.layers / 6 : 1) - 1u;
    const unsigned cube = static_cast<unsigned>(layer) > last ? last : static_cast<unsigned>(layer);
    desc one = layer_of(d, static_cast<int>(cube * 6u) + face);
    one.normalized_coords = 1;
    return reader<T>::at(one, u, v, 0.0f);
}
}  // namespace porter_tex
template <class T> __device__ inline T porter_texCubemap(const porter_tex_object_t& t, float x, float y, float z) {
    return porter_tex::cubemap<T>(t.d, x, y, z, 0);
}
template <class T>
__device__ inline T porter_texCubemapLod(const porter_tex_object_t& t, float x, float y, float z, float) {
    return porter_tex::cubemap<T>(t.d, x, y, z, 0);
}
template <class T>
__device__ inline T porter_texCubemapGrad(const porter_tex_object_t& t, float x, float y, float z, float4, float4) {
    return porter_tex::cubemap<T>(t.d, x, y, z, 0);
}
template <class T>
__device__ inline T porter_texCubemapLayered(const porter_tex_object_t& t, float x, float y, float z, int layer) {
    return porter_tex::cubemap<T>(t.d, x, y, z, layer);
}
template <class T>
__device__ inline T porter_texCubemapLayeredLod(const porter_tex_object_t& t, float x, float y, float z, int layer,
                                                float) {
    return porter_tex::cubemap<T>(t.d, x, y, z, layer);
}
template <class T>
__device__ inline T porter_texCubemapLayeredGrad(const porter_tex_object_t& t, float x, float y, float z, int layer,
                                                 float4, float4) {
    return porter_tex::cubemap<T>(t.d, x, y, z, layer);
}
template <class T>
__device__ inline void porter_texCubemap(T* out, const porter_tex_object_t& t, float x, float y, float z) {
    *out = porter_texCubemap<T>(t, x, y, z);
}
template <class T>
__device__ inline void porter_texCubemapLayered(T* out, const porter_tex_object_t& t, float x, float y, float z,
                                                int layer) {
    *out = porter_texCubemapLayered<T>(t, x, y, z, layer);
}

// CUDA's forms that return through a pointer
template <class T> __device__ inline void porter_tex1Dfetch(T* out, const porter_tex_object_t& t, int x) {
    *out = porter_tex1Dfetch<T>(t, x);
}
template <class T> __device__ inline void porter_tex1D(T* out, const porter_tex_object_t& t, float x) {
    *out = porter_tex1D<T>(t, x);
}
template <class T> __device__ inline void porter_tex2D(T* out, const porter_tex_object_t& t, float x, float y) {
    *out = porter_tex2D<T>(t, x, y);
}
template <class T> __device__ inline void porter_tex3D(T* out, const porter_tex_object_t& t, float x, float y, float z) {
    *out = porter_tex3D<T>(t, x, y, z);
}

// ---- texture references ---------------------------------------------------------------------------------------
namespace porter_tex {
// what a fetch through a reference returns: the texel type, or floats for hipReadModeNormalizedFloat
template <class T, int Mode> struct ref_result { typedef T type; };
#define PORTER_TEX_NORMALIZED(T, R) template <> struct ref_result<T, hipReadModeNormalizedFloat> { typedef R type; };
PORTER_TEX_NORMALIZED(char, float) PORTER_TEX_NORMALIZED(signed char, float) PORTER_TEX_NORMALIZED(unsigned char, float)
PORTER_TEX_NORMALIZED(short, float) PORTER_TEX_NORMALIZED(unsigned short, float)
PORTER_TEX_NORMALIZED(char1, float1) PORTER_TEX_NORMALIZED(uchar1, float1) PORTER_TEX_NORMALIZED(short1, float1)
PORTER_TEX_NORMALIZED(ushort1, float1) PORTER_TEX_NORMALIZED(char2, float2) PORTER_TEX_NORMALIZED(uchar2, float2)
PORTER_TEX_NORMALIZED(short2, float2) PORTER_TEX_NORMALIZED(ushort2, float2) PORTER_TEX_NORMALIZED(char4, float4)
PORTER_TEX_NORMALIZED(uchar4, float4) PORTER_TEX_NORMALIZED(short4, float4) PORTER_TEX_NORMALIZED(ushort4, float4)
#undef PORTER_TEX_NORMALIZED
}  // namespace porter_tex

// a texture reference: a __device__ variable (porter writes `static __device__ porter_tex_ref<...> tex;` for
// `texture<...> tex;`). Host code sets CUDA's textureReference fields on the host copy; a bind builds the
// texture object from them and copies the whole reference to the device copy, which kernels read.
template <class T, int Dim = 1, int Mode = hipReadModeElementType> struct porter_tex_ref {
    int normalized;
    enum hipTextureFilterMode filterMode;
    enum hipTextureAddressMode addressMode[3];
    hipChannelFormatDesc channelDesc;  // all zero until set: hipCreateChannelDesc<T>() at bind, as CUDA's default
    int sRGB;
    porter_tex_object_t object;  // what the last bind made; zero: unbound
    // CUDA's texture<> defaults (a constant initializer: a __device__ variable cannot run a constructor)
    constexpr porter_tex_ref(int norm = 0, enum hipTextureFilterMode filter = hipFilterModePoint,
                             enum hipTextureAddressMode address = hipAddressModeClamp)
        : normalized(norm), filterMode(filter), addressMode{address, address, address}, channelDesc{},
          sRGB(0), object(0) {}
};

namespace porter_tex {
template <class T, int Dim, int Mode>
inline hipError_t bind(porter_tex_ref<T, Dim, Mode>* tex, const porter_tex_resource_desc& res) {
    hipTextureDesc td;
    memset(&td, 0, sizeof td);
    for (int axis = 0; axis < 3; ++axis) td.addressMode[axis] = tex->addressMode[axis];
    td.filterMode = tex->filterMode;
    td.readMode = static_cast<enum hipTextureReadMode>(Mode);
    td.normalizedCoords = tex->normalized;
    td.sRGB = tex->sRGB;
    hipError_t e = porter_tex_create_object(&tex->object, &res, &td, nullptr);
    if (e != hipSuccess) return e;
    // the host copy's address names the __device__ variable (as HIP_SYMBOL does; void*, not CUDA's T&)
    return hipMemcpyToSymbol(static_cast<const void*>(tex), tex, sizeof *tex, 0, hipMemcpyHostToDevice);
}
template <class T, int Dim, int Mode> inline hipChannelFormatDesc channel_desc(const porter_tex_ref<T, Dim, Mode>& tex) {
    return tex.channelDesc.x || tex.channelDesc.y || tex.channelDesc.z || tex.channelDesc.w ? tex.channelDesc
                                                                                            : hipCreateChannelDesc<T>();
}
}  // namespace porter_tex

// cudaBindTexture: linear memory, with the reference's channelDesc or the one given
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture(size_t* offset, porter_tex_ref<T, Dim, Mode>* tex, const void* devPtr,
                                      const hipChannelFormatDesc* desc, size_t size = UINT_MAX) {
    if (tex == nullptr || desc == nullptr) return hipErrorInvalidValue;
    if (offset != nullptr) *offset = 0;
    porter_tex_resource_desc res;
    memset(&res, 0, sizeof res);
    res.resType = hipResourceTypeLinear;
    res.res.linear.devPtr = const_cast<void*>(devPtr);
    res.res.linear.desc = *desc;
    res.res.linear.sizeInBytes = size;
    tex->channelDesc = *desc;
    return porter_tex::bind(tex, res);
}
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture(size_t* offset, porter_tex_ref<T, Dim, Mode>& tex, const void* devPtr,
                                      const hipChannelFormatDesc& desc, size_t size = UINT_MAX) {
    return porter_bind_texture(offset, &tex, devPtr, &desc, size);
}
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture(size_t* offset, porter_tex_ref<T, Dim, Mode>& tex, const void* devPtr,
                                      size_t size = UINT_MAX) {
    const hipChannelFormatDesc desc = porter_tex::channel_desc(tex);
    return porter_bind_texture(offset, &tex, devPtr, &desc, size);
}
// cudaBindTexture2D: pitched memory
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture_2d(size_t* offset, porter_tex_ref<T, Dim, Mode>* tex, const void* devPtr,
                                         const hipChannelFormatDesc* desc, size_t width, size_t height, size_t pitch) {
    if (tex == nullptr || desc == nullptr) return hipErrorInvalidValue;
    if (offset != nullptr) *offset = 0;
    porter_tex_resource_desc res;
    memset(&res, 0, sizeof res);
    res.resType = hipResourceTypePitch2D;
    res.res.pitch2D.devPtr = const_cast<void*>(devPtr);
    res.res.pitch2D.desc = *desc;
    res.res.pitch2D.width = width;
    res.res.pitch2D.height = height;
    res.res.pitch2D.pitchInBytes = pitch;
    tex->channelDesc = *desc;
    return porter_tex::bind(tex, res);
}
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture_2d(size_t* offset, porter_tex_ref<T, Dim, Mode>& tex, const void* devPtr,
                                         const hipChannelFormatDesc& desc, size_t width, size_t height, size_t pitch) {
    return porter_bind_texture_2d(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture_2d(size_t* offset, porter_tex_ref<T, Dim, Mode>& tex, const void* devPtr,
                                         size_t width, size_t height, size_t pitch) {
    const hipChannelFormatDesc desc = porter_tex::channel_desc(tex);
    return porter_bind_texture_2d(offset, &tex, devPtr, &desc, width, height, pitch);
}
// cudaBindTextureToArray: a (porter) array, read with its own format
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture_to_array(porter_tex_ref<T, Dim, Mode>* tex, porter_tex_array_const_t array,
                                               const hipChannelFormatDesc* desc = nullptr) {
    if (tex == nullptr || array == nullptr) return hipErrorInvalidValue;
    porter_tex_resource_desc res;
    memset(&res, 0, sizeof res);
    res.resType = hipResourceTypeArray;
    res.res.array.array = const_cast<porter_tex_array_t>(array);
    tex->channelDesc = desc != nullptr ? *desc : array->desc;
    return porter_tex::bind(tex, res);
}
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture_to_array(porter_tex_ref<T, Dim, Mode>& tex, porter_tex_array_const_t array) {
    return porter_bind_texture_to_array(&tex, array);
}
template <class T, int Dim, int Mode>
inline hipError_t porter_bind_texture_to_array(porter_tex_ref<T, Dim, Mode>& tex, porter_tex_array_const_t array,
                                               const hipChannelFormatDesc& desc) {
    return porter_bind_texture_to_array(&tex, array, &desc);
}
// cudaUnbindTexture: the device copy reads as unbound (zeros) again
template <class T, int Dim, int Mode> inline hipError_t porter_unbind_texture(porter_tex_ref<T, Dim, Mode>* tex) {
    if (tex == nullptr) return hipErrorInvalidValue;
    tex->object = porter_tex_object_t(0);
    return hipMemcpyToSymbol(static_cast<const void*>(tex), tex, sizeof *tex, 0, hipMemcpyHostToDevice);
}
template <class T, int Dim, int Mode> inline hipError_t porter_unbind_texture(porter_tex_ref<T, Dim, Mode>& tex) {
    return porter_unbind_texture(&tex);
}

// fetches through a reference: the same functions, on the texture object of the reference's device copy
#define PORTER_TEX_REF_RESULT typename porter_tex::ref_result<T, Mode>::type
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex1Dfetch(const porter_tex_ref<T, Dim, Mode>& r, int x) {
    return porter_tex1Dfetch<PORTER_TEX_REF_RESULT>(r.object, x);
}
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex1D(const porter_tex_ref<T, Dim, Mode>& r, float x) {
    return porter_tex1D<PORTER_TEX_REF_RESULT>(r.object, x);
}
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex2D(const porter_tex_ref<T, Dim, Mode>& r, float x, float y) {
    return porter_tex2D<PORTER_TEX_REF_RESULT>(r.object, x, y);
}
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex3D(const porter_tex_ref<T, Dim, Mode>& r, float x, float y,
                                                     float z) {
    return porter_tex3D<PORTER_TEX_REF_RESULT>(r.object, x, y, z);
}
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex1DLod(const porter_tex_ref<T, Dim, Mode>& r, float x, float) {
    return porter_tex1D<PORTER_TEX_REF_RESULT>(r.object, x);
}
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex2DLod(const porter_tex_ref<T, Dim, Mode>& r, float x, float y,
                                                        float) {
    return porter_tex2D<PORTER_TEX_REF_RESULT>(r.object, x, y);
}
template <class T, int Dim, int Mode>
__device__ inline PORTER_TEX_REF_RESULT porter_tex3DLod(const porter_tex_ref<T, Dim, Mode>& r, float x, float y,
                                                        float z, float) {
    return porter_tex3D<PORTER_TEX_REF_RESULT>(r.object, x, y, z);
}
#undef PORTER_TEX_REF_RESULT

// surfaces: x in bytes, as in CUDA; boundary mode zero (reads 0, writes dropped), clamp or trap
#if defined(__HIP__)
#define PORTER_TEX_TRAP() __builtin_trap()
#else
#define PORTER_TEX_TRAP() __trap()  // the header built with nvcc (the tests compare it with CUDA's textures)
#endif
namespace porter_tex {
__device__ inline unsigned char* surface_at(const porter_surf_object_t& s, int x, int y, int z, int bytes,
                                            hipSurfaceBoundaryMode mode) {
    const bool outside = x < 0 || x + bytes > s.width_bytes || y < 0 || y >= s.height || z < 0 || z >= s.depth;
    if (outside) {
        if (mode == hipBoundaryModeZero) return nullptr;
        if (mode == hipBoundaryModeTrap) PORTER_TEX_TRAP();
        x = x < 0 ? 0 : (x + bytes > s.width_bytes ? s.width_bytes - bytes : x);
        y = y < 0 ? 0 : (y >= s.height ? s.height - 1 : y);
        z = z < 0 ? 0 : (z >= s.depth ? s.depth - 1 : z);
    }
    return s.data + static_cast<unsigned long long>(z) * s.slice + static_cast<unsigned long long>(y) * s.pitch + x;
}
// a layered or cubemap surface's layer (or face) as the H200 treats it: read as unsigned, so -1 is past the last
// layer (clamp mode: the last layer; zero mode: reads 0, writes dropped; trap mode: traps)
__device__ inline int surface_layer(const porter_surf_object_t& s, int layer, hipSurfaceBoundaryMode mode) {
    return static_cast<unsigned>(layer) < static_cast<unsigned>(s.depth) || mode != hipBoundaryModeClamp ? layer
                                                                                                         : s.depth - 1;
}
template <class T>
__device__ inline T surface_read(const porter_surf_object_t& s, int x, int y, int z, hipSurfaceBoundaryMode mode) {
    const unsigned char* p = surface_at(s, x, y, z, static_cast<int>(sizeof(T)), mode);
    T v = T();
    if (p != nullptr) memcpy(&v, p, sizeof(T));
    return v;
}
template <class T>
__device__ inline void surface_write(const T& v, const porter_surf_object_t& s, int x, int y, int z,
                                     hipSurfaceBoundaryMode mode) {
    unsigned char* p = surface_at(s, x, y, z, static_cast<int>(sizeof(T)), mode);
    if (p != nullptr) memcpy(p, &v, sizeof(T));
}
}  // namespace porter_tex

template <class T>
__device__ inline T porter_surf1Dread(const porter_surf_object_t& s, int x, hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, 0, 0, m);
}
template <class T>
__device__ inline void porter_surf1Dread(T* out, const porter_surf_object_t& s, int x,
                                         hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, 0, 0, m);
}
template <class T>
__device__ inline T porter_surf2Dread(const porter_surf_object_t& s, int x, int y,
                                      hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, y, 0, m);
}
template <class T>
__device__ inline void porter_surf2Dread(T* out, const porter_surf_object_t& s, int x, int y,
                                         hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, y, 0, m);
}
template <class T>
__device__ inline T porter_surf3Dread(const porter_surf_object_t& s, int x, int y, int z,
                                      hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, y, z, m);
}
template <class T>
__device__ inline void porter_surf3Dread(T* out, const porter_surf_object_t& s, int x, int y, int z,
                                         hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, y, z, m);
}
template <class T>
__device__ inline void porter_surf1Dwrite(T v, const porter_surf_object_t& s, int x,
                                          hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, 0, 0, m);
}
template <class T>
__device__ inline void porter_surf2Dwrite(T v, const porter_surf_object_t& s, int x, int y,
                                          hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, y, 0, m);
}
template <class T>
__device__ inline void porter_surf3Dwrite(T v, const porter_surf_object_t& s, int x, int y, int z,
                                          hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, y, z, m);
}
// layered and cubemap surfaces: the layer (face, or layer * 6 + face) is the slice, checked like z
template <class T>
__device__ inline T porter_surf1DLayeredread(const porter_surf_object_t& s, int x, int layer,
                                             hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, 0, porter_tex::surface_layer(s, layer, m), m);
}
template <class T>
__device__ inline void porter_surf1DLayeredread(T* out, const porter_surf_object_t& s, int x, int layer,
                                                hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, 0, porter_tex::surface_layer(s, layer, m), m);
}
template <class T>
__device__ inline T porter_surf2DLayeredread(const porter_surf_object_t& s, int x, int y, int layer,
                                             hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, y, porter_tex::surface_layer(s, layer, m), m);
}
template <class T>
__device__ inline void porter_surf2DLayeredread(T* out, const porter_surf_object_t& s, int x, int y, int layer,
                                                hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, y, porter_tex::surface_layer(s, layer, m), m);
}
template <class T>
__device__ inline T porter_surfCubemapread(const porter_surf_object_t& s, int x, int y, int face,
                                           hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, y, porter_tex::surface_layer(s, face, m), m);
}
template <class T>
__device__ inline void porter_surfCubemapread(T* out, const porter_surf_object_t& s, int x, int y, int face,
                                              hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, y, porter_tex::surface_layer(s, face, m), m);
}
template <class T>
__device__ inline T porter_surfCubemapLayeredread(const porter_surf_object_t& s, int x, int y, int layer_face,
                                                  hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    return porter_tex::surface_read<T>(s, x, y, porter_tex::surface_layer(s, layer_face, m), m);
}
template <class T>
__device__ inline void porter_surfCubemapLayeredread(T* out, const porter_surf_object_t& s, int x, int y,
                                                     int layer_face, hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    *out = porter_tex::surface_read<T>(s, x, y, porter_tex::surface_layer(s, layer_face, m), m);
}
template <class T>
__device__ inline void porter_surf1DLayeredwrite(T v, const porter_surf_object_t& s, int x, int layer,
                                                 hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, 0, porter_tex::surface_layer(s, layer, m), m);
}
template <class T>
__device__ inline void porter_surf2DLayeredwrite(T v, const porter_surf_object_t& s, int x, int y, int layer,
                                                 hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, y, porter_tex::surface_layer(s, layer, m), m);
}
template <class T>
__device__ inline void porter_surfCubemapwrite(T v, const porter_surf_object_t& s, int x, int y, int face,
                                               hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, y, porter_tex::surface_layer(s, face, m), m);
}
template <class T>
__device__ inline void porter_surfCubemapLayeredwrite(T v, const porter_surf_object_t& s, int x, int y,
                                                      int layer_face, hipSurfaceBoundaryMode m = hipBoundaryModeTrap) {
    porter_tex::surface_write(v, s, x, y, porter_tex::surface_layer(s, layer_face, m), m);
}
#undef PORTER_TEX_TRAP
#endif  // PORTER_TEXTURE_MATH_ONLY

#undef PORTER_TEX_HD
#endif  // PORTER_TEXTURE_H
