extern __device__ int f(int x);
__global__ void k1(int*p){ int x=p[1]; int r;
  switch(x){
  case 0: r= x*7+1; break; case 1: r= x^99; break; case 2: r= x*x+3; break; case 3: r= x-19; break;
  case 4: r= x*13; break; case 5: r= x+4321; break; case 6: r= x>>3; break; case 7: r= x*x*x+1; break;
  case 8: r= 15; break; case 9: r= x|0x200; break; default: r= -7;}
  p[0]=f(r); }
__global__ void k2(int*p){ p[2]=f(p[3])+1; }
