# `cmake --install <build> [--prefix P]`: the public headers, the static libraries as the CMake
# package `tensorgrad` (find_package(tensorgrad) → tensorgrad::runtime, ::core, ::parity,
# ::models, ::webgpu_shim, ::wgsl_subset, the executable ::tgparity, and the CMake function
# tensorgrad_add_parity_test), a pkg-config file, the tools wgslc, tgparity and tg-inspect, and
# what the tools read at run time under share/tensorgrad. Included from the top CMakeLists.
include(CMakePackageConfigHelpers)

# The package's names for the library targets; the build tree has the same names as aliases, so
# a project that adds this one as a subdirectory links them alike.
set(_tg_exported tensorgrad:core tensorgrad_runtime:runtime tensorgrad_parity:parity
                 tensorgrad_models:models webgpu_shim:webgpu_shim wgsl_subset:wgsl_subset)
set(_tg_targets)
foreach(_pair IN LISTS _tg_exported)
  string(REPLACE ":" ";" _pair "${_pair}")
  list(GET _pair 0 _target)
  list(GET _pair 1 _name)
  set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
  add_library(tensorgrad::${_name} ALIAS ${_target})
  list(APPEND _tg_targets ${_target})
endforeach()

install(TARGETS ${_tg_targets} EXPORT tensorgradTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tensorgrad/include/tensorgrad
                  ${PROJECT_SOURCE_DIR}/tensorgrad/models/include/tensorgrad
                  ${PROJECT_SOURCE_DIR}/webgpu_shim/include/webgpu
                  ${PROJECT_SOURCE_DIR}/webgpu_shim/include/dawn
                  ${PROJECT_SOURCE_DIR}/wgsl_subset/include/wgsl_subset
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS wgslc tg-inspect RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# tgparity is exported too (tensorgrad::tgparity), for tensorgrad_add_parity_test.
install(TARGETS tgparity EXPORT tensorgradTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
add_executable(tensorgrad::tgparity ALIAS tgparity)
include(${CMAKE_CURRENT_LIST_DIR}/tensorgradParity.cmake)

set(_tg_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tensorgrad)
install(EXPORT tensorgradTargets NAMESPACE tensorgrad:: DESTINATION ${_tg_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tensorgradConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/tensorgradConfig.cmake
                              INSTALL_DESTINATION ${_tg_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tensorgradConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tensorgradConfig.cmake
              ${PROJECT_BINARY_DIR}/tensorgradConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/tensorgradParity.cmake
        DESTINATION ${_tg_cmake_dir})

# pkg-config: the prefix is found from the .pc file's own place, so the tree may move.
file(RELATIVE_PATH _tg_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" _tg_pc_to_prefix "${_tg_pc_to_prefix}")
# Static libraries need their whole closure on the link line; shared ones carry it themselves.
set(_tg_pc_libs "-ltensorgrad_models -ltensorgrad_parity -ltensorgrad_runtime -ltensorgrad -lwebgpu_shim -lwgsl_subset")
set(_tg_pc_requires "vulkan nlohmann_json")
if(NOT BUILD_SHARED_LIBS)
  string(APPEND _tg_pc_requires " SPIRV-Tools")
  string(APPEND _tg_pc_libs " -lspirv-cross-core -lSPIRV -lglslang-default-resource-limits -lglslang -lMachineIndependent -lOSDependent -lGenericCodeGen -lOGLCompiler -pthread")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/tensorgrad.pc.in ${PROJECT_BINARY_DIR}/tensorgrad.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tensorgrad.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Run-time files of the tools: `tgparity diff` runs upstream's kernels through Dawn's kernel
# runner, or for a bundle recorded in Chromium through its twin that runs them in headless
# Chromium, both on the job code in kernel_job.mjs (after `npm ci --prefix
# <prefix>/share/tensorgrad/dawn`); the bundle recorder and its format are for the user's
# JavaScript side.
install(FILES ${PROJECT_SOURCE_DIR}/tests/dawn/run_kernels.mjs ${PROJECT_SOURCE_DIR}/tests/dawn/run_kernels_chromium.mjs
              ${PROJECT_SOURCE_DIR}/tests/dawn/kernel_job.mjs ${PROJECT_SOURCE_DIR}/tests/dawn/package.json
              ${PROJECT_SOURCE_DIR}/tests/dawn/package-lock.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tensorgrad/dawn)
install(FILES ${PROJECT_SOURCE_DIR}/tensorgrad/js/tgbundle.mjs ${PROJECT_SOURCE_DIR}/tensorgrad/js/README.md
              ${PROJECT_SOURCE_DIR}/tensorgrad/js/BUNDLE_FORMAT.md ${PROJECT_SOURCE_DIR}/tensorgrad/js/package.json
              ${PROJECT_SOURCE_DIR}/tensorgrad/js/playwright.mjs ${PROJECT_SOURCE_DIR}/tensorgrad/js/tgbundle.d.ts
              ${PROJECT_SOURCE_DIR}/tensorgrad/js/playwright.d.ts
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tensorgrad/js)
