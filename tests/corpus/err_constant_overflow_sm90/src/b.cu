// 32 KB and 4 bytes more: the bank would be 0x10004 bytes.
__constant__ float c_b[8193];
__global__ void kb(float *o) { o[threadIdx.x] = c_b[threadIdx.x * 41]; }
