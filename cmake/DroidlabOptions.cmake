# droidlab_options: C++20, warnings (errors in CI), sanitizers. Linked by our targets only, so
# system headers and third-party code are never compiled under our warning flags.
find_program(DROIDLAB_CCACHE ccache)
if(DROIDLAB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${DROIDLAB_CCACHE})
endif()

add_library(droidlab_options INTERFACE)
target_compile_features(droidlab_options INTERFACE cxx_std_20)
target_compile_options(droidlab_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wold-style-cast -Wnon-virtual-dtor -Wformat=2)
# g++ 12 at -O3 reports a false -Wrestrict inside std::string's operator+ (GCC bug 105329), in
# code as plain as `"u" + std::to_string(n)`; Release builds would fail on it under -Werror.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(droidlab_options INTERFACE -Wno-restrict)
  # g++ 12 at -O2 reports Asio's awaitable frame delete as mismatched with its operator new when
  # it inlines a frame allocation into the caller (both are awaitable_frame_base's own): a false
  # positive once no temporary sits in a co_await full-expression (those g++ 12 does destroy
  # twice, see orchestrator/device_shell.h). Same change as on main.
  target_compile_options(droidlab_options INTERFACE -Wno-mismatched-new-delete)
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
