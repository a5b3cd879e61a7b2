// 32 KB of __constant__ data.
__constant__ float c_a[8192];
__global__ void ka(float *o) { o[threadIdx.x] = c_a[threadIdx.x * 37]; }
