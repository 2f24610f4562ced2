// porter shim: cooperative-groups members and functions that HIP lacks, or lacks before some ROCm version
// (porter/data/rewrites.toml [cg_members] records which): meta_group_rank/meta_group_size (HIP 5.7),
// ballot/any/all/match_any/match_all on tiles and coalesced groups (HIP 6.2, and only with
// HIP_ENABLE_WARP_SYNC_BUILTINS defined before the HIP headers, still so in 6.4), num_threads, dim_threads, thread_block's group_dim (HIP 6.4 has it, 5.2 not),
// grid_group's num_blocks/block_rank/block_index/dim_blocks/thread_index (not in HIP 6.4), binary_partition
// (HIP 6.2, opt-in as above) and labeled_partition (not in HIP 6.4).
//
// A header cannot add members to HIP's classes, so porter rewrites `g.member(args)` as
// `porter_cg::member(g, args)`. Each porter_cg function calls the group's own member whenever the type has
// one (HIP's, on a ROCm that provides it, or any other type's), and only otherwise computes it here: the
// rewrite never replaces something HIP already does.
//
// How this differs from CUDA:
// - ballot/match_any/match_all of a thread_block_tile<N> return `unsigned int` for N <= 32, as in CUDA, and
//   `unsigned long long` for N = 64 (a whole wavefront; CUDA has no such tile). On a coalesced group they
//   return `unsigned long long` (bit r = the thread of rank r), as HIP's own do: a coalesced group can hold
//   64 threads on CDNA.
// - match_any/match_all compare values with `==` after one shuffle per group member (up to 64 shuffles),
//   where CUDA has a single instruction. Results are the same; it is slower.
// - meta_group_rank/meta_group_size of a thread_block_tile<N> with its parent type erased
//   (`thread_block_tile<N>`, i.e. `<N, void>`) assume the tile was partitioned from the thread block itself,
//   the common case (`thread_block_tile<32> t = tiled_partition<32>(block)`). CUDA remembers the parent; HIP
//   before 5.7 does not, so a tile of a tile stored as `<N, void>` reports its rank in the block, not in its
//   parent tile. Tiles whose parent type is kept (`auto t = tiled_partition<8>(tile32)`) are exact.
// - meta_group_rank of a coalesced_group needs HIP 5.7 (HIP records a partition's rank from then on); on
//   older HIP it fails to compile with a message saying so rather than guessing.
// - grid_group::num_threads/num_blocks/block_rank return `unsigned long long`, as in CUDA.
#ifndef PORTER_CG_MEMBERS_H
#define PORTER_CG_MEMBERS_H

#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace porter_cg {
namespace cg = ::cooperative_groups;

namespace detail {
struct fallback {};
struct prefer_member : fallback {};  // overload ranking: the group's own member wins when it exists

template <bool Wide> struct mask_type { typedef unsigned int type; };
template <> struct mask_type<true> { typedef unsigned long long type; };
template <unsigned N> struct tile_mask : mask_type<(N > 32)> {};
template <class T> struct always_false { static constexpr bool value = false; };

// HIP keeps a coalesced group's lanes in a protected member; a member pointer formed inside a derived class
// reads it (ordinary C++ access rules) without restating HIP's layout.
struct coalesced_access : cg::coalesced_group {
    static constexpr decltype(&coalesced_access::coalesced_info) info() { return &coalesced_access::coalesced_info; }
};
// and a derived class may call HIP's protected constructor from a lane mask
struct coalesced_maker : cg::coalesced_group {
    __device__ explicit coalesced_maker(unsigned long long lanes) : cg::coalesced_group(lanes) {}
};

__device__ inline unsigned long long lanes_of(const cg::coalesced_group& g) {
    return static_cast<unsigned long long>((g.*coalesced_access::info()).member_mask);
}

// the wavefront lanes of the calling thread's tile of N threads, and the first of them
template <unsigned N> __device__ inline unsigned int tile_first_lane() { return __lane_id() & ~(N - 1u); }
template <unsigned N> __device__ inline unsigned long long tile_lanes() {
    const unsigned long long ones = N >= 64 ? ~0ull : ((1ull << N) - 1ull);
    return ones << tile_first_lane<N>();
}
template <unsigned N, class P> __device__ unsigned long long lanes_of(const cg::thread_block_tile<N, P>&) {
    return tile_lanes<N>();
}

// HIP 6.x records a coalesced group's partition rank and count; HIP 5.x has no such fields (nothing to set)
template <class Info>
__device__ auto set_meta(Info& info, unsigned int rank, unsigned int count, prefer_member)
    -> decltype(info.tiled_info.meta_group_rank = rank, void()) {
    info.tiled_info.meta_group_rank = rank;
    info.tiled_info.meta_group_size = count;
}
template <class Info> __device__ void set_meta(Info&, unsigned int, unsigned int, fallback) {}

__device__ inline cg::coalesced_group make_coalesced(unsigned long long lanes, unsigned int rank, unsigned int count) {
    cg::coalesced_group g = coalesced_maker(lanes);
    set_meta(g.*coalesced_access::info(), rank, count, prefer_member{});
    return g;
}

__device__ inline unsigned int block_rank_in_block() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }

// bit r of the result = bit of the r-th set lane of `lanes` in `wave` (lanes packed by rank)
__device__ inline unsigned long long pack_lanes(unsigned long long lanes, unsigned long long wave) {
    unsigned long long out = 0;
    for (unsigned int rank = 0; lanes != 0; lanes &= lanes - 1, ++rank) {
        const unsigned int lane = __ffsll(static_cast<long long>(lanes)) - 1;
        out |= ((wave >> lane) & 1ull) << rank;
    }
    return out;
}

// the lanes of `lanes` whose `value` equals the caller's: one shuffle per member (all members take part, as
// CUDA requires, so every lane read is active)
template <class T> __device__ unsigned long long matching_lanes(unsigned long long lanes, T value) {
    unsigned long long out = 0;
    for (unsigned long long rest = lanes; rest != 0; rest &= rest - 1) {
        const int lane = __ffsll(static_cast<long long>(rest)) - 1;
        if (__shfl(value, lane) == value) out |= 1ull << lane;
    }
    return out;
}
template <class T> __device__ unsigned long long matching_lanes(unsigned long long lanes, T* value) {
    return matching_lanes(lanes, reinterpret_cast<unsigned long long>(value));
}

// --- computed versions, for the groups HIP lacks them on ------------------------------------------------
template <unsigned N> __device__ unsigned int meta_rank(const cg::thread_block_tile<N, cg::thread_block>&) {
    return block_rank_in_block() / N;
}
template <unsigned N> __device__ unsigned int meta_size(const cg::thread_block_tile<N, cg::thread_block>&) {
    return (block_size() + N - 1) / N;
}
template <unsigned N, unsigned M, class G>
__device__ unsigned int meta_rank(const cg::thread_block_tile<N, cg::thread_block_tile<M, G>>&) {
    return (block_rank_in_block() % M) / N;  // rank in the parent tile, over N
}
template <unsigned N, unsigned M, class G>
__device__ unsigned int meta_size(const cg::thread_block_tile<N, cg::thread_block_tile<M, G>>&) {
    return (M + N - 1) / N;
}
template <unsigned N> __device__ unsigned int meta_rank(const cg::thread_block_tile<N, void>&) {
    return block_rank_in_block() / N;  // parent erased: assumed to be the thread block (see the header)
}
template <unsigned N> __device__ unsigned int meta_size(const cg::thread_block_tile<N, void>&) {
    return (block_size() + N - 1) / N;
}
template <class G> __device__ unsigned int meta_rank(const G&) {
    static_assert(always_false<G>::value,
                  "porter_cg::meta_group_rank: this group's partition rank needs HIP 5.7 or later (coalesced_group)");
    return 0;
}
template <class G> __device__ unsigned int meta_size(const G&) {
    static_assert(always_false<G>::value,
                  "porter_cg::meta_group_size: this group's partition size needs HIP 5.7 or later (coalesced_group)");
    return 0;
}

template <unsigned N, class P>
__device__ typename tile_mask<N>::type ballot(const cg::thread_block_tile<N, P>&, int pred) {
    const unsigned long long wave = __ballot(pred) & tile_lanes<N>();
    return static_cast<typename tile_mask<N>::type>(wave >> tile_first_lane<N>());
}
__device__ inline unsigned long long ballot(const cg::coalesced_group& g, int pred) {
    const unsigned long long lanes = lanes_of(g);
    return pack_lanes(lanes, __ballot(pred) & lanes);
}

template <unsigned N, class P> __device__ int any(const cg::thread_block_tile<N, P>& g, int pred) {
    return ballot(g, pred) != 0;
}
template <unsigned N, class P> __device__ int all(const cg::thread_block_tile<N, P>& g, int pred) {
    return ballot(g, pred) == static_cast<typename tile_mask<N>::type>(tile_lanes<N>() >> tile_first_lane<N>());
}
__device__ inline int any(const cg::coalesced_group& g, int pred) { return (__ballot(pred) & lanes_of(g)) != 0; }
__device__ inline int all(const cg::coalesced_group& g, int pred) {
    const unsigned long long lanes = lanes_of(g);
    return (__ballot(pred) & lanes) == lanes;
}

template <unsigned N, class P, class T>
__device__ typename tile_mask<N>::type match_any(const cg::thread_block_tile<N, P>&, T value) {
    return static_cast<typename tile_mask<N>::type>(matching_lanes(tile_lanes<N>(), value) >> tile_first_lane<N>());
}
template <class T> __device__ unsigned long long match_any(const cg::coalesced_group& g, T value) {
    const unsigned long long lanes = lanes_of(g);
    return pack_lanes(lanes, matching_lanes(lanes, value));
}
template <class G, class T> __device__ auto match_all(const G& g, T value, int& pred) -> decltype(match_any(g, value)) {
    typedef decltype(match_any(g, value)) mask_t;
    const mask_t same = match_any(g, value);
    const unsigned int members = g.size();
    const mask_t everyone = members >= 64 ? ~static_cast<mask_t>(0) : ((static_cast<mask_t>(1) << members) - 1);
    pred = same == everyone;
    return pred ? everyone : 0;
}

__device__ inline unsigned long long num_threads(const cg::grid_group& g) { return g.size(); }
template <class G> __device__ unsigned int num_threads(const G& g) { return g.size(); }
__device__ inline dim3 dim_threads(const cg::thread_block&) { return dim3(blockDim.x, blockDim.y, blockDim.z); }
// thread_block::group_dim(), CUDA's older name for dim_threads() (HIP 5.2 lacks it; 6.4 has it)
__device__ inline dim3 group_dim(const cg::thread_block&) { return dim3(blockDim.x, blockDim.y, blockDim.z); }
__device__ inline dim3 dim_threads(const cg::grid_group&) {
    return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
}
__device__ inline dim3 thread_index(const cg::grid_group&) {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
}
__device__ inline dim3 thread_index(const cg::thread_block&) { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
__device__ inline dim3 dim_blocks(const cg::grid_group&) { return dim3(gridDim.x, gridDim.y, gridDim.z); }
__device__ inline unsigned long long num_blocks(const cg::grid_group&) {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
}
__device__ inline dim3 block_index(const cg::grid_group&) { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
__device__ inline unsigned long long block_rank(const cg::grid_group&) {
    return blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
}

// --- the group's own member when it has one, else the computed version -----------------------------------
#define PORTER_CG_FORWARD(name, computed)                                                                   \
    template <class G, class... A>                                                                          \
    __host__ __device__ auto name(prefer_member, G&& g, A&&... a) -> decltype(g.name(static_cast<A&&>(a)...)) { \
        return g.name(static_cast<A&&>(a)...);                                                              \
    }                                                                                                       \
    template <class G, class... A>                                                                          \
    __device__ auto name(fallback, G&& g, A&&... a) -> decltype(computed(g, static_cast<A&&>(a)...)) {      \
        return computed(g, static_cast<A&&>(a)...);                                                         \
    }
PORTER_CG_FORWARD(meta_group_rank, meta_rank)
PORTER_CG_FORWARD(meta_group_size, meta_size)
PORTER_CG_FORWARD(ballot, ballot)
PORTER_CG_FORWARD(any, any)
PORTER_CG_FORWARD(all, all)
PORTER_CG_FORWARD(match_any, match_any)
PORTER_CG_FORWARD(match_all, match_all)
PORTER_CG_FORWARD(num_threads, num_threads)
PORTER_CG_FORWARD(dim_threads, dim_threads)
PORTER_CG_FORWARD(group_dim, group_dim)
PORTER_CG_FORWARD(thread_index, thread_index)
PORTER_CG_FORWARD(dim_blocks, dim_blocks)
PORTER_CG_FORWARD(num_blocks, num_blocks)
PORTER_CG_FORWARD(block_index, block_index)
PORTER_CG_FORWARD(block_rank, block_rank)
#undef PORTER_CG_FORWARD
}  // namespace detail

#define PORTER_CG_MEMBER(name)                                                                              \
    template <class G, class... A>                                                                          \
    __host__ __device__ auto name(G&& g, A&&... a)                                                          \
        -> decltype(detail::name(detail::prefer_member{}, static_cast<G&&>(g), static_cast<A&&>(a)...)) {   \
        return detail::name(detail::prefer_member{}, static_cast<G&&>(g), static_cast<A&&>(a)...);          \
    }
PORTER_CG_MEMBER(meta_group_rank)
PORTER_CG_MEMBER(meta_group_size)
PORTER_CG_MEMBER(ballot)
PORTER_CG_MEMBER(any)
PORTER_CG_MEMBER(all)
PORTER_CG_MEMBER(match_any)
PORTER_CG_MEMBER(match_all)
PORTER_CG_MEMBER(num_threads)
PORTER_CG_MEMBER(dim_threads)
PORTER_CG_MEMBER(group_dim)
PORTER_CG_MEMBER(thread_index)
PORTER_CG_MEMBER(dim_blocks)
PORTER_CG_MEMBER(num_blocks)
PORTER_CG_MEMBER(block_index)
PORTER_CG_MEMBER(block_rank)
#undef PORTER_CG_MEMBER

}  // namespace porter_cg


// binary_partition / labeled_partition: the threads of a tile or coalesced group whose predicate / label
// equals the caller's, with CUDA's meta_group_rank/meta_group_size (kept where HIP 6.x has the fields).
// Generic templates in HIP's namespace: wherever HIP declares its own (binary_partition in 6.2+ with
// HIP_ENABLE_WARP_SYNC_BUILTINS), HIP's overload is the better match and is the one called.
namespace cooperative_groups {
template <class G> __device__ coalesced_group binary_partition(const G& g, bool pred) {
    const unsigned long long lanes = porter_cg::detail::lanes_of(g);
    const unsigned long long set = __ballot(pred) & lanes;
    if (set == lanes || set == 0) return porter_cg::detail::make_coalesced(lanes, 0, 1);
    return porter_cg::detail::make_coalesced(pred ? set : lanes & ~set, pred ? 1 : 0, 2);
}
#ifndef PORTER_HIP_HAS_LABELED_PARTITION
template <class G, class Label> __device__ coalesced_group labeled_partition(const G& g, Label label) {
    const unsigned long long lanes = porter_cg::detail::lanes_of(g);
    const unsigned long long same = porter_cg::detail::matching_lanes(lanes, label);
    const unsigned int leader = __ffsll(static_cast<long long>(same)) - 1;
    const unsigned long long leaders = __ballot(leader == __lane_id()) & lanes;  // one per label
    const unsigned int rank = __popcll(leaders & ((1ull << leader) - 1ull));
    return porter_cg::detail::make_coalesced(same, rank, __popcll(leaders));
}
template <class G> __device__ coalesced_group labeled_partition(const G& g, bool label) {
    return binary_partition(g, label);
}
#endif
}  // namespace cooperative_groups

// Shuffles of any trivially copyable type (CUDA's cooperative-groups shuffles take any type; HIP's take integers
// and floating-point values only: uint4, float2, a struct fail). The value moves as 32-bit words, each through the
// group's own shuffle, so it arrives bit for bit; porter rewrites `g.shfl_xor(v, m)` to this on the compiler's error.
namespace porter_cg {
namespace detail {
template <typename T>
struct words {
    // (no trivially-copyable check: HIP 5.2's vector types declare their own copy operations, yet are plain data)
    static constexpr unsigned count = (sizeof(T) + 3) / 4;
    unsigned int w[count];
    __device__ explicit words(const T& v) : w{} { __builtin_memcpy(w, static_cast<const void*>(&v), sizeof(T)); }
    __device__ T value() const {
        T out;
        __builtin_memcpy(static_cast<void*>(&out), w, sizeof(T));
        return out;
    }
};
}  // namespace detail
template <class Group, typename T>
__device__ inline T shfl(const Group& g, T v, unsigned int src) {
    detail::words<T> w(v);
    for (unsigned i = 0; i < detail::words<T>::count; ++i) w.w[i] = g.shfl(w.w[i], src);
    return w.value();
}
template <class Group, typename T>
__device__ inline T shfl_xor(const Group& g, T v, unsigned int mask) {
    detail::words<T> w(v);
    for (unsigned i = 0; i < detail::words<T>::count; ++i) w.w[i] = g.shfl_xor(w.w[i], mask);
    return w.value();
}
template <class Group, typename T>
__device__ inline T shfl_down(const Group& g, T v, unsigned int delta) {
    detail::words<T> w(v);
    for (unsigned i = 0; i < detail::words<T>::count; ++i) w.w[i] = g.shfl_down(w.w[i], delta);
    return w.value();
}
template <class Group, typename T>
__device__ inline T shfl_up(const Group& g, T v, unsigned int delta) {
    detail::words<T> w(v);
    for (unsigned i = 0; i < detail::words<T>::count; ++i) w.w[i] = g.shfl_up(w.w[i], delta);
    return w.value();
}
}  // namespace porter_cg

#endif  // PORTER_CG_MEMBERS_H
