__global__ void child(int *p) { p[threadIdx.x] = 1; }
__global__ void parent(int *p, int n) { if (threadIdx.x == 0) child<<<1, n>>>(p); }
__device__ int sw(int x, int *p) {
  switch (x) { case 0: return p[3]; case 1: return p[7]*2; case 2: return p[9]+1; case 3: return p[1]^5; case 4: return p[11]-3; case 5: return p[2]; case 6: return p[5]*7; default: return 0; }
}
__global__ void kswitch(int *p, int x) { p[0] = sw(x, p); }
__global__ void kloc(int *p, int n) { volatile int buf[200]; for (int i=0;i<200;i++) buf[i]=p[i]; p[0]=buf[n]; }
