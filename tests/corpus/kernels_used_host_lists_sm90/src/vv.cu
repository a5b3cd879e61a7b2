// The host launches k1 only. -kernels-used (or -variables-used) makes the
// host lists count for nothing: -kernels-used=k2 keeps k2 (and helper) and
// drops k1; -variables-used without -kernels-used keeps no kernel at all.
// Variables stay either way.
__device__ int g1[4];
__device__ int g2[4];
__device__ int g3[4];
__device__ __noinline__ int helper(int x) { return x * 3; }
__global__ void k1(int *o) { o[0] = g1[o[1]]; }
__global__ void k2(int *o) { o[0] = g2[o[1]] + helper(o[2]); }
void run(int *p) { k1<<<1, 1>>>(p); }
