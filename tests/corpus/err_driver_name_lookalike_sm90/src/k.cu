// Names that only look like the driver's: nvlink matches its list exactly.
extern "C" __device__ void cudaGraphSetConditionalX(int);
extern "C" __device__ void mallocx(int);
__global__ void k_calls(int x) { cudaGraphSetConditionalX(x); mallocx(x); }
