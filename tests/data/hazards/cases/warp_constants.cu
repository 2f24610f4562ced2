// checks: PW005 PW006
#define WARP_SIZE 32                        // expect: PW005
#define TILE 32
constexpr int kWarpSize = 32;               // expect: PW005
static const int BLOCK = 256;
__global__ void k(float* out) {
  __shared__ float per_lane[32];            // expect: PW006
  __shared__ float per_warp[BLOCK / 32];
  __shared__ float tile_row[TILE];
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;
  per_lane[lane] = 1.0f;
  per_warp[wid] = 2.0f;
  tile_row[threadIdx.x] = 3.0f;
  out[threadIdx.x] = per_lane[lane] + per_warp[wid] + tile_row[threadIdx.x];
}
