// Kernels whose own static shared memory plus what `tile_sum` (another
// file) brings is over 48 KB: each file is fine for ptxas, the link is not.
__device__ int tile_sum(int i);
__device__ int depth(int i) { return i <= 0 ? 0 : depth(i - 1) + 1; }
extern __shared__ int dyn[];
// 40000 + 16000 bytes: 0xdac0, over.
__global__ void over_a(int *o) {
  __shared__ int s[10000];
  s[threadIdx.x] = o[0];
  __syncthreads();
  o[1] = s[o[2]] + tile_sum(o[3]) + depth(o[4]);
}
// Recursive: its stack warning is not printed when the link fails so.
__global__ void deep(int *o) { o[1] = depth(o[4]); }
// 33152 + 16000 bytes: 0xc000 exactly, links.
__global__ void at_limit(int *o) {
  __shared__ int s[8288];
  s[threadIdx.x] = o[0];
  __syncthreads();
  o[1] = s[o[2]] + tile_sum(o[3]);
}
// 36000 + 16000 bytes and an extern array after them: 0xcb20.
__global__ void over_dyn(int *o) {
  __shared__ int s[9000];
  s[threadIdx.x] = o[0];
  dyn[threadIdx.x] = 1;
  __syncthreads();
  o[1] = s[o[2]] + tile_sum(o[3]);
}
