// -kernels-used names `ka` alone; `ka` launches `kb`, which launches `kc`
// (both kept as functions): `ka`'s EIATTR_EXTERNS takes `kc` from `kb`'s.
extern __global__ void kb(int *p, int d);
__global__ void ka(int *p) { if (threadIdx.x == 0) kb<<<1, 1>>>(p, 2); }
