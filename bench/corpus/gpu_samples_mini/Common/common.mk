# Shared by every sample Makefile.
CUDA_PATH ?= /usr/local/cuda
NVCC      := $(CUDA_PATH)/bin/nvcc
SMS       ?= 70 80 90
GENCODE   := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm))
INCLUDES  := -I../../../Common
NVCCFLAGS := -std=c++17 $(GENCODE)
ifeq ($(dbg),1)
  NVCCFLAGS += -g -G
else
  NVCCFLAGS += -O2
endif

$(TARGET): $(TARGET).o
	$(NVCC) $(NVCCFLAGS) -o $@ $+ $(LIBRARIES)

$(TARGET).o: $(TARGET).cu
	$(NVCC) $(INCLUDES) $(NVCCFLAGS) -o $@ -c $<

clean:
	rm -f $(TARGET) $(TARGET).o
