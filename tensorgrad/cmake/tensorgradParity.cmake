# tensorgrad_add_parity_test(NAME <name> BUNDLE <file.tgbundle.json> [RTOL <r>] [STEPS <n>]
#                            [DEVICE <adapter>] [VULKAN_DRIVER <driver>])
#
# Registers a CTest test that replays a graph bundle (a model traced and trained in the browser,
# written by tgbundle.mjs or tg::writeBundle) with `tgparity run`: it trains natively on the
# bundle's recorded feeds and fails when a step's loss differs from the recorded one, bit for bit
# by default or past RTOL × |recorded| with RTOL. STEPS limits the replay to the first n steps;
# DEVICE and VULKAN_DRIVER pick the native adapter (default: the device the bundle was recorded
# on, see `tgparity run --help`). A relative BUNDLE is taken from the calling directory.
# Part of the installed package (find_package(tensorgrad)) and of the build tree.
function(tensorgrad_add_parity_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;BUNDLE;RTOL;STEPS;DEVICE;VULKAN_DRIVER" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tensorgrad_add_parity_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_BUNDLE)
    message(FATAL_ERROR "tensorgrad_add_parity_test: NAME and BUNDLE are required")
  endif()
  if(NOT TARGET tensorgrad::tgparity)
    message(FATAL_ERROR "tensorgrad_add_parity_test: tensorgrad::tgparity is not defined "
                        "(find_package(tensorgrad) first)")
  endif()
  get_filename_component(bundle "${arg_BUNDLE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${bundle}")
    message(FATAL_ERROR "tensorgrad_add_parity_test(${arg_NAME}): no bundle at ${bundle}")
  endif()
  set(command $<TARGET_FILE:tensorgrad::tgparity> run "${bundle}")
  if(DEFINED arg_RTOL)
    list(APPEND command --rtol ${arg_RTOL})
  endif()
  if(DEFINED arg_STEPS)
    list(APPEND command --steps ${arg_STEPS})
  endif()
  if(DEFINED arg_DEVICE)
    list(APPEND command --device "${arg_DEVICE}")
  endif()
  if(DEFINED arg_VULKAN_DRIVER)
    list(APPEND command --vulkan-driver "${arg_VULKAN_DRIVER}")
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${command})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS tensorgrad_parity)
endfunction()
