// First compile unit: the kernel names `combine` (defined in lib.cu) before
// lib.cu's other functions are met, so `combine` gets the lower symbol index.
__device__ int combine(int x);
typedef int (*fn_t)(int);
extern __constant__ fn_t ops[];
__global__ void k_lines(int *o) { o[0] = ops[o[1] & 3](o[2]) + combine(o[3]); }
