// checks: PT001 PT002 PT003
texture<float, 1, cudaReadModeElementType> texRef;                       // expect: PT001
__global__ void k(float* out, cudaTextureObject_t obj) {
  out[0] = tex1Dfetch(texRef, threadIdx.x);                              // expect: PT002
  out[1] = tex1Dfetch<float>(obj, threadIdx.x);
}
int main() {
  float* d = nullptr;
  cudaBindTexture(0, texRef, d, 1024);                                    // expect: PT003
  cudaUnbindTexture(texRef);                                              // expect: PT003
}
