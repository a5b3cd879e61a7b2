// 16000 bytes of shared memory every caller takes.
__device__ __noinline__ int tile_sum(int i) {
  __shared__ int t[4000];
  t[i] = i;
  __syncthreads();
  return t[i ^ 3];
}
