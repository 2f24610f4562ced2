// checks: PW001 PW002 PW003 PW004 PW006 PW008 PL004
// 32-wide tiles, literal 32 in unrelated arithmetic, % 32 on data: none of these are warp-size hazards.
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transpose(float* odata, const float* idata, int width, int n) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  __shared__ float row[32];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  row[threadIdx.x] = 0.0f;
  __syncthreads();
  int blocks = (n + 31) / 32;
  int bucket = n % 32;
  int col = x % TILE_DIM;
  int bits = n & 31;
  for (int i = 16; i > 0; i /= 2) bucket += i;
  odata[blocks + bucket + col + bits] = tile[threadIdx.x][threadIdx.y] + row[threadIdx.y];
}
