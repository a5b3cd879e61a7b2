// A device function's static __shared__ array (in .nv_debug.shared, with the
// section's symbol) and a kernel with dynamic shared memory (an extern
// array): the section stays for the extern array, its symbol goes.
__device__ __noinline__ int total(int v)
{
  __shared__ int sums[32];
  sums[threadIdx.x & 31] = v;
  __syncthreads();
  return sums[(threadIdx.x + 1) & 31];
}
__global__ void k_dyn(int *p)
{
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = total(dyn[threadIdx.x ^ 1]);
}
