// Built-in prompts, domain `code`: requests a developer sends to a coding assistant. Written for
// this project. Most are a task × the languages it is natural in × a phrasing; the rest are
// requests about a piece of code shown in the prompt (find the bug, explain, review, test).

/** [what the function does (follows "that"), the languages it is asked in]. */
const TASKS: Array<[string, string[]]> = [
  ['checks whether a string is a palindrome, ignoring case, spaces and punctuation', ['Python', 'JavaScript']],
  ['returns the n-th Fibonacci number using an iterative approach, and raises an error for negative n', ['Python', 'Rust']],
  ['merges two sorted lists into one sorted list without calling the built-in sort', ['Python', 'Go']],
  ['parses a date in the format YYYY-MM-DD and returns the day of the week as a word', ['Python', 'Java']],
  ['counts how often each word appears in a text and returns the ten most common words with their counts', ['Python', 'TypeScript']],
  ['removes duplicate entries from a list while keeping the order in which they first appear', ['Python', 'JavaScript']],
  ['converts a Roman numeral such as MCMXCIV into an integer and rejects invalid numerals', ['Python', 'C#']],
  ['finds the longest common prefix of a list of strings', ['Go', 'JavaScript']],
  ['rotates a square matrix by 90 degrees clockwise in place', ['C++', 'Python']],
  ['implements binary search on a sorted array and returns the index of the target, or -1 when it is absent', ['C', 'Rust']],
  ['flattens an arbitrarily nested list of integers into a flat list', ['Python', 'JavaScript']],
  ['computes the Levenshtein edit distance between two strings using dynamic programming', ['Python', 'Java']],
  ['checks whether a string made of the brackets ()[]{} is balanced', ['JavaScript', 'Go']],
  ['generates all permutations of a list of distinct items', ['Python', 'Rust']],
  ['implements an LRU cache with get and put operations that both run in O(1) time', ['Python', 'Java']],
  ['reads a CSV file and returns the average of a numeric column given by its header name, skipping empty cells', ['Python', 'Go']],
  ['splits a list into chunks of a given size, where the last chunk may be shorter', ['TypeScript', 'Python']],
  ['turns a number of seconds into a readable duration such as "2h 5m 30s"', ['JavaScript', 'Python']],
  ['returns all prime numbers up to n using the sieve of Eratosthenes', ['C', 'Python']],
  ['finds the indices of the two numbers in an array that add up to a target value, in linear time', ['Java', 'TypeScript']],
  ['retries a failing call up to five times with exponential back-off and jitter', ['Python', 'Go']],
  ['converts a camelCase identifier into snake_case, keeping acronyms such as HTTPServer readable', ['Python', 'Rust']],
  ['computes the median of an unsorted list of numbers without sorting the whole list', ['Python', 'C++']],
  ['groups a list of words into lists of anagrams', ['JavaScript', 'Python']],
  ['serialises a binary tree to a string and parses that string back into the same tree', ['Java', 'Python']],
  ['detects whether a singly linked list contains a cycle, using constant extra memory', ['C', 'Go']],
  ['shortens a string to a maximum length and adds an ellipsis, without cutting a word in half', ['TypeScript', 'Python']],
  ['checks whether a 9x9 Sudoku grid, with 0 for empty cells, breaks any of the rules so far', ['Python', 'Java']],
  ['finds the length of the shortest path from the top-left to the bottom-right cell of a grid with walls, moving in four directions', ['Python', 'C++']],
  ['keeps the moving average of a stream of numbers over the last k values', ['Go', 'Python']],
  ['formats a number with thousands separators and two decimals, so 1234567.891 becomes 1,234,567.89', ['JavaScript', 'C#']],
  ['returns the k largest elements of an array using a heap', ['Python', 'Java']],
  ['checks whether two axis-aligned rectangles, each given by two corners, overlap', ['C#', 'JavaScript']],
  ['orders tasks so that each comes after the tasks it depends on (a topological sort), and reports a cycle if there is one', ['Python', 'Go']],
  ['parses a URL query string into a map from each key to the list of its values, decoding percent escapes', ['Go', 'TypeScript']],
  ['compresses a string with run-length encoding, turning "aaabcc" into "a3b1c2", and decodes it back', ['Python', 'Rust']],
  ['computes the greatest common divisor and the least common multiple of two integers', ['C', 'Python']],
  ['debounces a callback so that it runs only once calls have stopped for 300 milliseconds', ['TypeScript', 'JavaScript']],
  ['implements a counter that several threads can increment safely, and shows it used from four threads', ['Java', 'Rust']],
  ['validates an IPv4 address given as a string, rejecting leading zeros and numbers above 255', ['Python', 'Go']],
];

const PHRASINGS: Array<(lang: string, task: string) => string> = [
  (lang, task) => `Write a ${lang} function that ${task}. Include a few test cases.`,
  (lang, task) => `In ${lang}, implement a function that ${task}. Keep it readable and tell me its time complexity.`,
  (lang, task) => `Can you write ${lang} code that ${task}? Please comment the tricky parts.`,
  (lang, task) => `I need a ${lang} function that ${task}. Handle empty input sensibly and explain your choices briefly.`,
];

/** Requests about a piece of code, written out in full. */
const ABOUT_CODE: string[] = [
  `This Python function is supposed to return the average of a list, but it crashes sometimes. What's wrong and how do I fix it?

\`\`\`python
def average(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)
\`\`\``,
  `Why does this JavaScript print 3 three times instead of 0, 1, 2? Show me two ways to fix it.

\`\`\`javascript
for (var i = 0; i < 3; i++) {
  setTimeout(() => console.log(i), 100);
}
\`\`\``,
  `Explain what this SQL query does, step by step, and suggest an index that would make it faster.

\`\`\`sql
SELECT c.name, COUNT(o.id) AS orders, SUM(o.total) AS revenue
FROM customers c
JOIN orders o ON o.customer_id = c.id
WHERE o.created_at >= DATE '2024-01-01'
GROUP BY c.name
HAVING COUNT(o.id) > 5
ORDER BY revenue DESC
LIMIT 20;
\`\`\``,
  `Review this Go handler. Are there any bugs or risks, and how would you improve it?

\`\`\`go
func getUser(w http.ResponseWriter, r *http.Request) {
    id := r.URL.Query().Get("id")
    row := db.QueryRow("SELECT name, email FROM users WHERE id = " + id)
    var name, email string
    row.Scan(&name, &email)
    fmt.Fprintf(w, "{\\"name\\": \\"%s\\", \\"email\\": \\"%s\\"}", name, email)
}
\`\`\``,
  `Write unit tests with pytest for this function. Cover the edge cases you can think of.

\`\`\`python
def parse_price(text: str) -> float:
    """Parses prices like '$1,299.99' or '12 EUR' into a float."""
    cleaned = text.replace('$', '').replace('EUR', '').replace(',', '').strip()
    return float(cleaned)
\`\`\``,
  `This Rust code does not compile: "cannot borrow \`v\` as mutable because it is also borrowed as immutable". Why, and what is the idiomatic fix?

\`\`\`rust
fn main() {
    let mut v = vec![1, 2, 3];
    let first = &v[0];
    v.push(4);
    println!("first = {}", first);
}
\`\`\``,
  `Refactor this JavaScript to use async/await instead of nested callbacks, and add error handling.

\`\`\`javascript
function loadProfile(userId, done) {
  getUser(userId, function (err, user) {
    if (err) return done(err);
    getPosts(user.id, function (err, posts) {
      if (err) return done(err);
      getFriends(user.id, function (err, friends) {
        done(null, { user, posts, friends });
      });
    });
  });
}
\`\`\``,
  `What is the difference between a process and a thread? Give an example in Python where using threads does not speed things up, and explain why.`,
  `Write a bash script that finds every file larger than 100 MB under a directory given as the first argument, and prints them sorted by size with human-readable sizes.`,
  `Write a regular expression that matches dates in the form DD/MM/YYYY where the day is 01-31 and the month 01-12. Explain each part, and tell me what it still gets wrong.`,
  `Write a Dockerfile for a small Node.js 20 web service that listens on port 8080. Use a multi-stage build so the final image has no dev dependencies, and run it as a non-root user.`,
  `I keep getting "fatal: refusing to merge unrelated histories" when I pull from GitHub into a repository I created locally. What does it mean and what should I do?`,
  `Explain what this C function does and whether it has any undefined behaviour.

\`\`\`c
char *copy(const char *s) {
    char buf[64];
    strcpy(buf, s);
    return buf;
}
\`\`\``,
  `Design a REST API for a small library system: books, members and loans. List the endpoints with their methods, request bodies and status codes, and explain how you would handle a member trying to borrow a book that is already on loan.`,
  `Write a SQL query that returns, for each department, the employee with the highest salary. The table is employees(id, name, department_id, salary). Ties should return all tied employees.`,
  `Convert this Python class into a dataclass, and explain what I gain.

\`\`\`python
class Point:
    def __init__(self, x, y, label=None):
        self.x = x
        self.y = y
        self.label = label

    def __repr__(self):
        return f"Point({self.x}, {self.y}, {self.label})"

    def __eq__(self, other):
        return (self.x, self.y, self.label) == (other.x, other.y, other.label)
\`\`\``,
  `Why is this TypeScript giving "Object is possibly 'undefined'" and what's the cleanest way to handle it?

\`\`\`typescript
const users = new Map<string, { name: string }>();
function greet(id: string): string {
  return "Hello, " + users.get(id).name;
}
\`\`\``,
  `Write a GitHub Actions workflow that runs \`npm ci\` and \`npm test\` on Node 20 and 22 for every pull request, and caches the npm cache between runs.`,
  `Optimise this Python loop. It takes minutes on a list of 100,000 items.

\`\`\`python
result = []
for item in items:
    if item not in result:
        result.append(item)
\`\`\``,
  `Explain Big-O notation to me like I'm a junior developer, using examples of O(1), O(log n), O(n) and O(n^2) code in Python.`,
];

/** The code prompts: each task in its languages (phrasings rotate), then the requests about code. */
export function codePrompts(): string[] {
  const out: string[] = [];
  let k = 0;
  for (const [task, langs] of TASKS) {
    for (const lang of langs) out.push(PHRASINGS[k++ % PHRASINGS.length](lang, task));
  }
  return out.concat(ABOUT_CODE);
}
