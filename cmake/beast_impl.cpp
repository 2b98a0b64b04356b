// Boost.Beast's implementation, compiled once (BOOST_BEAST_SEPARATE_COMPILATION): api/ and its
// tests include only the declarations.
#include <boost/beast/src.hpp>
