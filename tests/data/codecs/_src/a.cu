#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern __device__ int ext_fn(int);
__device__ int rec(int n) { return n <= 1 ? 1 : n * rec(n-1); }
__device__ __noinline__ int helper(int x) { int buf[64]; for (int i=0;i<64;i++) buf[i]=x*i; return buf[x&63] + ext_fn(x); }
__constant__ int cbuf[16];
__device__ int gvar[100];

__global__ void __launch_bounds__(256, 2) k1(int *out, int a, float b, double c, char d, int *e, cudaTextureObject_t to) {
  __shared__ int sm[256];
  sm[threadIdx.x] = a + cbuf[threadIdx.x & 15];
  __syncthreads();
  out[threadIdx.x] = sm[255-threadIdx.x] + helper(a) + rec(a) + (int)b + (int)c + d + *e + gvar[a] + (int)tex1Dfetch<float>(to, a);
}
struct Big { int v[40]; };
__global__ void k2(Big big, int n) { extern __shared__ int dyn[]; dyn[n] = big.v[n]; if (n == 0) asm volatile("exit;"); gvar[n] = dyn[n+1]; }
__global__ void k3(int *p) { cg::grid_group g = cg::this_grid(); p[0]=1; g.sync(); p[1]=2; }
typedef int (*fp_t)(int);
__device__ int f1(int x){return x+1;}
__device__ int f2(int x){return x+2;}
__device__ fp_t tab[2] = {f1, f2};
__global__ void k4(int *p, int i) { p[0] = tab[i](p[1]); printf("hi %d\n", p[0]); }
