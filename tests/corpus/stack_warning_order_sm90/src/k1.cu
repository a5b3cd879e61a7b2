__device__ int ping(int);
__global__ void kA(int* o){ o[0]=ping(o[1]); }
__global__ void kB(int* o){ o[0]=ping(o[2]); }
__global__ void kC(int* o){ o[0]=ping(o[3]); }
