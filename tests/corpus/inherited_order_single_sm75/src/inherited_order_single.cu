// Written for culdb's corpus: one kernel inheriting EIATTR_CTAIDZ_USED,
// EIATTR_NUM_BARRIERS and EXTERNS (nvcc -G), the barrier's giver read first
// and called directly, the CTAIDZ giver read later and reached through
// another call: nvlink appends CTAIDZ_USED before NUM_BARRIERS all the same.
#include <cstdio>
__device__ void fB(int *p) { p[threadIdx.x] = 1; __syncthreads(); p[0] += p[1]; }
__device__ void fE(int x) { printf("%d\n", x); }
__device__ void fZ(int *p) { p[0] = blockIdx.z; }
__device__ void g(int *p) { fZ(p); }
template <int N> __device__ void tile(float *c, const float *a) {
  __shared__ float s[N][N];
  s[threadIdx.y][threadIdx.x] = a[threadIdx.y * N + threadIdx.x];
  __syncthreads();
  c[threadIdx.x] = s[threadIdx.x][threadIdx.y];
}
__global__ void k1(int *p, float *c) { fB(p); fE(p[2]); g(p); tile<16>(c, c + 256); }
