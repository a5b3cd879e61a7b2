// A program that calls nothing of the system library.
__global__ void kApp(int *p) { p[0] = 7; }
void runApp(int *p) { kApp<<<1, 1>>>(p); }
