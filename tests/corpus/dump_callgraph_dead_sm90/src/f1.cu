__device__ int used(int x){ return x*2; }
__device__ int unused(int x){ return x*3; }
__device__ int deadcaller(int x){ return unused(x) + 1; }
__device__ int used2(int x){ return used(x) - 5; }
