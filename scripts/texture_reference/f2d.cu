// float 5x4 2D array: tex2D<float> on a 64x64 grid, every address mode x filter x coordinate mode (see README.md)
#include<cstdio>
__global__ void k(cudaTextureObject_t t,float*o,float b,float s){int i=threadIdx.x,j=blockIdx.x;o[j*64+i]=tex2D<float>(t,b+i*s,b+j*s*1.01f);}
int main(){float v[20];for(int y=0;y<4;y++)for(int x=0;x<5;x++)v[y*5+x]=x*x*1.25f+y*8-x*y*.5f+(x==2&&y==1)*3;
auto c=cudaCreateChannelDesc<float>();cudaArray_t a;cudaMallocArray(&a,&c,5,4);cudaMemcpy2DToArray(a,0,0,v,20,20,4,cudaMemcpyHostToDevice);
float*o;cudaMallocManaged(&o,64*64*4);FILE*f=fopen(getenv("F"),"wb");
for(int N=0;N<2;N++)for(int F=0;F<2;F++)for(int A=0;A<5;A++){cudaResourceDesc r={};r.resType=cudaResourceTypeArray;r.res.array.array=a;cudaTextureDesc d={};
d.addressMode[0]=d.addressMode[1]=(cudaTextureAddressMode)(A<4?A:3);d.filterMode=(cudaTextureFilterMode)F;d.normalizedCoords=N;if(A==4)d.borderColor[0]=2.5f;
cudaTextureObject_t t;if(cudaCreateTextureObject(&t,&r,&d,0))return 1;
float b=N?-1.25f:-1.5f,s=N?.0557f:.127f;k<<<64,64>>>(t,o,b,s);cudaDeviceSynchronize();fwrite(o,4,4096,f);cudaDestroyTextureObject(t);}
fclose(f);return cudaGetLastError();}
