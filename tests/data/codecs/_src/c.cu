#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cassert>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2,1,1) kc(float *p) {
  cg::cluster_group cl = cg::this_cluster();
  __shared__ float s[64];
  s[threadIdx.x] = p[threadIdx.x];
  cl.sync();
  float *r = cl.map_shared_rank(s, 1);
  p[threadIdx.x] = r[threadIdx.x];
}
__global__ void __maxnreg__(32) kmr(double *p, int n) {
  double acc[32];
  for (int i = 0; i < 32; i++) acc[i] = p[i*n];
  for (int j = 0; j < n; j++) for (int i = 0; i < 32; i++) acc[i] = acc[i]*acc[(i+j)&31] + 1.0;
  for (int i = 0; i < 32; i++) p[i] = acc[i];
}
__global__ void ksys(int *p) { atomicAdd_system(p, 1); assert(p[1] != 5); }
__global__ void child(int *p) { p[threadIdx.x] = 1; }
__global__ void kmb(unsigned long long *p) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  bar.arrive_and_wait();
  p[0] = clock64();
}
__global__ void kreq(int *p) __attribute__((used));
__global__ void __launch_bounds__(64, 1, 2) kreq(int *p) { p[blockIdx.z] = threadIdx.x; }
