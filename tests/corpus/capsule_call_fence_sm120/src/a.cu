extern __constant__ int table[8];
extern __device__ int work(int x);
extern __device__ int pick(int s, int v);
__device__ int flag;
__device__ __noinline__ int helper2(int x) {
  int r = work(x);
  __threadfence_system();
  r += table[x & 7];
  flag = r + table[3];
  __threadfence();
  return r + work(r);
}
__global__ void k2(int *out, int s) {
  int v = helper2(threadIdx.x) + table[2];
  out[threadIdx.x] = v + pick(s + 1, v);
}
