// Plain separate compilation: calls a function of the LTO object.
__device__ float twice(float);
__global__ void app_kernel(float* p) { p[0] = twice(p[1]); }
