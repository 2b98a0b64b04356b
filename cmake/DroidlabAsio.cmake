# droidlab_asio: Boost.Asio built once (see cmake/asio_impl.cpp). Link it instead of Boost
# directly; it carries the defines every Asio user must share.
find_package(Boost 1.81 REQUIRED)
find_package(Threads REQUIRED)
add_library(droidlab_asio STATIC ${CMAKE_CURRENT_LIST_DIR}/asio_impl.cpp)
target_compile_features(droidlab_asio PUBLIC cxx_std_20)
target_compile_definitions(droidlab_asio PUBLIC
  BOOST_ASIO_SEPARATE_COMPILATION
  BOOST_ASIO_NO_DEPRECATED
  BOOST_ASIO_DISABLE_BOOST_COROUTINE)
target_link_libraries(droidlab_asio PUBLIC Boost::headers Threads::Threads)
if(DROIDLAB_SANITIZER)
  string(REPLACE ";" "," _asio_sanitizers "${DROIDLAB_SANITIZER}")
  target_compile_options(droidlab_asio PRIVATE -fsanitize=${_asio_sanitizers})
endif()

# droidlab_asio_ssl: Boost.Asio's TLS layer built once (cmake/asio_ssl_impl.cpp), over OpenSSL's
# libssl: linked by what speaks TLS only (api/'s webhook client, its tests' receiver).
find_package(OpenSSL REQUIRED)
add_library(droidlab_asio_ssl STATIC ${CMAKE_CURRENT_LIST_DIR}/asio_ssl_impl.cpp)
target_link_libraries(droidlab_asio_ssl PUBLIC droidlab_asio OpenSSL::SSL)
if(DROIDLAB_SANITIZER)
  target_compile_options(droidlab_asio_ssl PRIVATE -fsanitize=${_asio_sanitizers})
endif()

# droidlab_beast: Boost.Beast built once (cmake/beast_impl.cpp), linked privately by api/ and the
# client commands (daemon/'s droidlab_client) only, so that the rest of the tree keeps its compile
# flags (and its ccache entries).
add_library(droidlab_beast STATIC ${CMAKE_CURRENT_LIST_DIR}/beast_impl.cpp)
target_compile_definitions(droidlab_beast PUBLIC BOOST_BEAST_SEPARATE_COMPILATION)
target_link_libraries(droidlab_beast PUBLIC droidlab_asio)
if(DROIDLAB_SANITIZER)
  target_compile_options(droidlab_beast PRIVATE -fsanitize=${_asio_sanitizers})
endif()
