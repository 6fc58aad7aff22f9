import CArgon2
import CLibPQ
import CMicroHTTPD
import COpenSSL
import CSQLite

print("portico")
