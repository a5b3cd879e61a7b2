// trig triggers the dependent launch (PREEXIT); kc waits for its primary (ACQBULK).
__device__ __noinline__ int trig(int x) { cudaTriggerProgrammaticLaunchCompletion(); return x * 3; }
__global__ void kc(int *p) { cudaGridDependencySynchronize(); p[threadIdx.x] = 5; }
