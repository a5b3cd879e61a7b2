// Under -g every kernel reaching the extern array has it at one offset:
// the largest they need (0x190 after tile's 100 ints), rounded up to the
// largest alignment of their own variables (wide's 64).
extern __shared__ int spill[];
__global__ void tile(int* p) {
  __shared__ int t[100];
  t[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = t[99 - threadIdx.x] + spill[threadIdx.x];
}
__global__ void wide(double* p) {
  __shared__ alignas(64) double w[4];
  w[threadIdx.x & 3] = p[0];
  __syncthreads();
  p[threadIdx.x] = w[threadIdx.x & 3] + spill[0];
}
