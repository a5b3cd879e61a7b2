// -g records the input files and -o by their base names (nvcc -G links
// /tmp/tmpxft_… objects into /tmp/tmpxft_…_dlink.sm_XX.cubin).
__device__ int twice(int x) { return 2 * x; }
__global__ void k_paths(int *p) { p[threadIdx.x] = twice(p[threadIdx.x]); }
