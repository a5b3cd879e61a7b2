// The strong definitions of ga and gp (gp = &ga).
__device__ int ga;
__device__ int *gp = &ga;
__global__ void ks(int *o) { o[0] = *gp; }
