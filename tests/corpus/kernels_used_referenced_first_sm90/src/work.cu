// Unlisted kernels: `worker` (launched by `boss`, met first as a reference)
// with static shared memory, `helper_k` (its address in `table`'s data),
// `loner` (nobody refers to it), `early` (kept only by `late`'s launch,
// which comes after this object).
__global__ void worker(int *p) {
  __shared__ int s[32];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x + 1] = s[31 - threadIdx.x];
}
__global__ void helper_k(int *p) { p[2] = 3; }
__global__ void loner(int *p) { p[3] = 4; }
__global__ void early(int *p) { p[4] = 5; }
