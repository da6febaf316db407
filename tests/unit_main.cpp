// The one translation unit that defines Boost.Test's main for every test executable.
#define BOOST_TEST_MODULE weir
#include <boost/test/unit_test.hpp>
