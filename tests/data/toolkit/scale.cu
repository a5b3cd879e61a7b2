// The device function main.cu's kernel calls across files.
__device__ float factor = 2.5f;
__device__ __noinline__ float scale(float x) { return x * factor; }
