// -kernels-used names `kz` alone; `ka`, which launches `kb`, goes, but
// `kb` stays (its address is taken) as a function: its EIATTR_EXTERNS
// keeps `kc` though `ka` is gone, and `kz`'s takes `kb`'s names.
extern __global__ void kb(int *p, int d);
__global__ void ka(int *p) { if (threadIdx.x == 0) kb<<<1, 1>>>(p, 2); }
__global__ void kz(int *p) { p[threadIdx.x] = 0; }
