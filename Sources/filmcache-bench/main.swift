import FilmCacheKit
print("filmcache-bench")
