__device__ int ping(int);
__device__ int pong(int n) { return n <= 1 ? 1 : n + ping(n - 1); }
