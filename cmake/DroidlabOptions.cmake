# droidlab_options: C++20, warnings (errors in CI), sanitizers. Linked by our targets only, so
# system headers and third-party code are never compiled under our warning flags.
find_program(DROIDLAB_CCACHE ccache)
if(DROIDLAB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${DROIDLAB_CCACHE})
endif()

# mold, when installed (deploy/install-deps.sh installs it): it links an ASan test binary of ours
# in 1.3 s where ld.bfd takes 6.7 s (tests/api, 2026-11-28), and a build links ~20 of them.
# Every target's link, ours and the generated ones, so it is set for the directory.
option(DROIDLAB_MOLD "Link with mold when it is installed" ON)
find_program(DROIDLAB_MOLD_PROGRAM mold)
if(DROIDLAB_MOLD AND DROIDLAB_MOLD_PROGRAM)
  add_link_options(-fuse-ld=mold)
endif()

add_library(droidlab_options INTERFACE)
target_compile_features(droidlab_options INTERFACE cxx_std_20)
target_compile_options(droidlab_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wold-style-cast -Wnon-virtual-dtor -Wformat=2)
# g++ 12 at -O3 reports a false -Wrestrict inside std::string's operator+ (GCC bug 105329), in
# code as plain as `"u" + std::to_string(n)`; Release builds would fail on it under -Werror.
# It also reports a false -Wmismatched-new-delete where it inlines the creation of an Asio
# awaitable's frame (asio's awaitable_frame_base has its own operator new/delete, which g++ 12
# pairs with the global new once inlined): any coroutine can trip it at -O2.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(droidlab_options INTERFACE -Wno-restrict -Wno-mismatched-new-delete)
endif()
# A unity build compiles each .cpp as an include of a generated file, and g++ then takes every
# anonymous-namespace type and lambda of ours for one defined in a header: -Wsubobject-linkage
# (meant for headers) fires on each coroutine frame that holds one. Our headers define none.
if(DROIDLAB_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(droidlab_options INTERFACE -Wno-subobject-linkage)
endif()
if(DROIDLAB_WERROR)
  target_compile_options(droidlab_options INTERFACE -Werror)
endif()
# Every include is spelled from the repository root: "parsers/logcat.h".
target_include_directories(droidlab_options INTERFACE ${PROJECT_SOURCE_DIR})

if(DROIDLAB_SANITIZER)
  string(REPLACE ";" "," _sanitizers "${DROIDLAB_SANITIZER}")
  target_compile_options(droidlab_options INTERFACE
    -fsanitize=${_sanitizers} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(droidlab_options INTERFACE -fsanitize=${_sanitizers})
endif()
