__device__ int pong(int);
__device__ int ping(int n){ return n<=1?1:n*pong(n-1); }
