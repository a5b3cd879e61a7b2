// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
__device__ __noinline__ int dev(int *p) {
  __shared__ int s_dev[64];
  s_dev[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  return s_dev[63 - threadIdx.x];
}
template<int N> __device__ __noinline__ int tdev(int *p) {
  __shared__ int s_t[N];
  s_t[threadIdx.x] = p[threadIdx.x];
  return s_t[N-1 - threadIdx.x];
}
__global__ void k1(int *p) {
  __shared__ float a1[32];
  a1[threadIdx.x] = p[0];
  p[threadIdx.x] = dev(p) + a1[0] + tdev<16>(p) + tdev<8>(p);
}
__global__ void k2(int *p) { p[1] = tdev<8>(p); }
__global__ void k3(int *p) { p[2] = 7; }
