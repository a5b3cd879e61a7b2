typedef int (*fp_t)(int);
__device__ int g1(int x){return x+1;}
__device__ int g2(int x){return x+2;}
__device__ int g3(int x){return x+3;}
__device__ float h1(float x){return x*2;}
__global__ void takes_addr(fp_t *out) { out[0] = g1; }
__global__ void calls_ind(fp_t *in, int *p) { p[0] = in[0](p[1]); }
__global__ void calls_f(float (**in)(float), float *p) { p[0] = in[0](p[1]); }
__device__ fp_t gtab[1] = {g3};
__device__ float (*ftab)(float) = h1;
