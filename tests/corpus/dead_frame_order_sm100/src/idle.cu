// A kernel nothing launches: dead-code elimination removes it, and its
// frame record with it.
__global__ void idle(float* o, float a) {}
