// Boost.Asio's (and later Beast's) implementation, compiled once for the whole project
// (BOOST_ASIO_SEPARATE_COMPILATION): every other file includes only the declarations, which
// takes minutes off a clean build on a 2-core machine.
#include <boost/asio/impl/src.hpp>
