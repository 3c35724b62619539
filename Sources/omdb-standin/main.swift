import OMDbStandIn
print("omdb-standin")
