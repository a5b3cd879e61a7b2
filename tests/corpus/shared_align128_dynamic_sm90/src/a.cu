// kernel with a 128-byte aligned static __shared__ array whose size is not a multiple of 128, plus an extern (dynamic) __shared__ array
extern __shared__ __align__(16) float dyn[];
__global__ void k(const float* in, float* out) {
  __shared__ __align__(128) float big[100];
  big[threadIdx.x % 100] = in[threadIdx.x];
  dyn[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = big[(threadIdx.x + 1) % 100] + dyn[31 - threadIdx.x];
}
