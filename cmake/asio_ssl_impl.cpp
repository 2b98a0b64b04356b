// Boost.Asio's TLS layer (asio::ssl over OpenSSL), compiled once like asio_impl.cpp, in a library
// of its own (droidlab_asio_ssl) so that only what speaks TLS links OpenSSL's libssl.
#include <boost/asio/ssl/impl/src.hpp>
