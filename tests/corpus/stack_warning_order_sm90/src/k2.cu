__device__ int ping(int);
__global__ void kD(int* o){ o[0]=ping(o[1]); }
__global__ void kE(int* o){ o[0]=ping(o[2]); }
static __global__ void kL(int* o){ o[0]=ping(o[5]); }
void* keep = (void*)kL;
