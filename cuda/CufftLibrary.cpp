#include "cuda/CufftLibrary.h"

#include <dlfcn.h>

#include <string>

namespace glint::cuda {

namespace {

template <typename F>
bool resolve(void* handle, const char* name, F& out) {
    out = reinterpret_cast<F>(::dlsym(handle, name));
    return out != nullptr;
}

const CufftApi* open() {
    // The dynamic linker's search (LD_LIBRARY_PATH, ld.so.cache), then the toolkit's library folder that the
    // program was built against. Kept open for the process's life.
    const std::string name = "libcufft.so." + std::to_string(CUFFT_VER_MAJOR);
    void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) handle = ::dlopen((std::string(GLINT_CUDA_LIBRARY_DIR) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return nullptr;
    static CufftApi api;
    if (resolve(handle, "cufftPlan2d", api.plan2d) && resolve(handle, "cufftPlanMany", api.planMany) &&
        resolve(handle, "cufftSetStream", api.setStream) && resolve(handle, "cufftDestroy", api.destroy) &&
        resolve(handle, "cufftExecR2C", api.execR2C) && resolve(handle, "cufftExecC2R", api.execC2R) &&
        resolve(handle, "cufftExecD2Z", api.execD2Z) && resolve(handle, "cufftExecZ2D", api.execZ2D))
        return &api;
    ::dlclose(handle);
    return nullptr;
}

} // namespace

const CufftApi* cufftApi() {
    static const CufftApi* const api = open();
    return api;
}

} // namespace glint::cuda
