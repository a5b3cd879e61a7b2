// -G: k1 inherits EXTERNS (from __assert_fail, which check calls) and
// NUM_BARRIERS (from the static wait_all, whose table ptxas writes after
// __assert_fail's); k2 inherits NUM_BARRIERS only.
#include <cassert>
__device__ int check(int x) { assert(x >= 0); return x; }
static __device__ void wait_all() { __syncthreads(); }
__global__ void k1(int *p, int n) { wait_all(); p[threadIdx.x] = check(n); }
__global__ void k2(int *p, int n) { wait_all(); p[threadIdx.x] = n; }
