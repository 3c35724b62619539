import Foundation

/// Real-shaped OMDb bodies shared by the normalization tests.
enum OMDbSamples {
    /// A movie with all three ratings, box office and a DVD date.
    static let gladiator = """
        {"Title":"Gladiator","Year":"2000","Rated":"R","Released":"05 May 2000","Runtime":"155 min",\
        "Genre":"Action, Adventure, Drama","Director":"Ridley Scott",\
        "Writer":"David Franzoni (story), David Franzoni (screenplay), John Logan (screenplay), William Nicholson (screenplay)",\
        "Actors":"Russell Crowe, Joaquin Phoenix, Connie Nielsen",\
        "Plot":"A former Roman General sets out to exact vengeance against the corrupt emperor who murdered his family and sent him into slavery.",\
        "Language":"English","Country":"United States, United Kingdom, Malta, Morocco",\
        "Awards":"Won 5 Oscars. 60 wins & 106 nominations total",\
        "Poster":"https://m.media-amazon.com/images/M/MV5BMDliMmNhNDEtODUyOS00MjNlLTgxODEtN2U3NzIxMGVkZTA1L2ltYWdlXkEyXkFqcGdeQXVyNjU0OTQ0OTY@._V1_SX300.jpg",\
        "Ratings":[{"Source":"Internet Movie Database","Value":"8.5/10"},{"Source":"Rotten Tomatoes","Value":"80%"},\
        {"Source":"Metacritic","Value":"67/100"}],"Metascore":"67","imdbRating":"8.5","imdbVotes":"1,603,120",\
        "imdbID":"tt0172495","Type":"movie","DVD":"21 Nov 2000","BoxOffice":"$187,705,427","Production":"N/A",\
        "Website":"N/A","Response":"True"}
        """

    /// A series still running: `Year` ends in an EN DASH.
    static let openSeries = """
        {"Title":"The Simpsons","Year":"1989–","Rated":"TV-PG","Released":"17 Dec 1989","Runtime":"22 min",\
        "Genre":"Animation, Comedy","Director":"N/A","Writer":"James L. Brooks, Matt Groening, Sam Simon",\
        "Actors":"Dan Castellaneta, Nancy Cartwright, Harry Shearer","Plot":"The satiric adventures of a working-class family.",\
        "Language":"English, Spanish","Country":"United States","Awards":"Won 37 Primetime Emmys. 197 wins & 339 nominations total",\
        "Poster":"https://m.media-amazon.com/images/M/simpsons.jpg","Ratings":[{"Source":"Internet Movie Database","Value":"8.7/10"}],\
        "Metascore":"N/A","imdbRating":"8.7","imdbVotes":"435,201","imdbID":"tt0096697","Type":"series","totalSeasons":"36",\
        "Response":"True"}
        """

    /// A finished series.
    static let finishedSeries = """
        {"Title":"Game of Thrones","Year":"2011–2019","Rated":"TV-MA","Released":"17 Apr 2011","Runtime":"57 min",\
        "Genre":"Action, Adventure, Drama","Director":"N/A","Writer":"David Benioff, D.B. Weiss",\
        "Actors":"Emilia Clarke, Peter Dinklage, Kit Harington","Plot":"Nine noble families fight for control over the lands of Westeros.",\
        "Language":"English","Country":"United States, United Kingdom","Awards":"Won 59 Primetime Emmys. 391 wins & 656 nominations total",\
        "Poster":"https://m.media-amazon.com/images/M/got.jpg","Ratings":[{"Source":"Internet Movie Database","Value":"9.2/10"}],\
        "Metascore":"N/A","imdbRating":"9.2","imdbVotes":"2,301,119","imdbID":"tt0944947","Type":"series","totalSeasons":"8",\
        "Response":"True"}
        """

    /// An episode, with `Season`, `Episode` and `seriesID`.
    static let episode = """
        {"Title":"Winter Is Coming","Year":"2011","Rated":"TV-MA","Released":"17 Apr 2011","Season":"1","Episode":"1",\
        "Runtime":"62 min","Genre":"Action, Adventure, Drama","Director":"Tim Van Patten",\
        "Writer":"David Benioff, D.B. Weiss, George R.R. Martin","Actors":"Sean Bean, Mark Addy, Nikolaj Coster-Waldau",\
        "Plot":"Eddard Stark is torn between his family and an old friend.","Language":"English","Country":"United States",\
        "Awards":"N/A","Poster":"https://m.media-amazon.com/images/M/wic.jpg",\
        "Ratings":[{"Source":"Internet Movie Database","Value":"8.9/10"}],"Metascore":"N/A","imdbRating":"8.9",\
        "imdbVotes":"52,341","imdbID":"tt1480055","seriesID":"tt0944947","Type":"episode","Response":"True"}
        """

    /// An obscure film OMDb knows almost nothing about.
    static let almostEmpty = """
        {"Title":"Untitled Short","Year":"1912","Rated":"N/A","Released":"N/A","Runtime":"N/A","Genre":"N/A",\
        "Director":"N/A","Writer":"N/A","Actors":"N/A","Plot":"N/A","Language":"N/A","Country":"N/A","Awards":"N/A",\
        "Poster":"N/A","Ratings":[],"Metascore":"N/A","imdbRating":"N/A","imdbVotes":"N/A","imdbID":"tt0000001",\
        "Type":"movie","DVD":"N/A","BoxOffice":"N/A","Production":"N/A","Website":"N/A","Response":"True"}
        """

    /// A body with one field changed from `gladiator` by a plain text replacement.
    static func gladiator(replacing old: String, with new: String) -> String {
        precondition(gladiator.contains(old), "sample has no \(old)")
        return gladiator.replacingOccurrences(of: old, with: new)
    }

    /// Every OMDb error text the design lists.
    static let errorTexts = [
        "Request limit reached!", "Daily request limit reached!", "Invalid API key!", "No API key provided.",
        "Incorrect IMDb ID.", "Movie not found!", "Series not found!", "Series or episode not found!",
        "Error getting data.", "Something went wrong.",
    ]
}
