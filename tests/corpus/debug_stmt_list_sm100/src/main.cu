// First compile unit: a kernel calling a function of the second.
__device__ int pick(int x);
__global__ void k_stmt(int *o) { o[0] = pick(o[2]); }
