// Built-in prompts, domain `math`: word problems, exercises and proofs. Written for this project.
// The word problems are templates with several sets of numbers each (chosen so every problem has a
// sensible answer); the proofs and exercises are written out.

type Problem = (n: number[]) => string;

/** 120000 → "120,000" (no Intl in k6). */
const big = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/** [template, its sets of numbers]. */
const WORD_PROBLEMS: Array<[Problem, number[][]]> = [
  [
    ([v1, lag, v2]) =>
      `A train leaves a station travelling at ${v1} km/h. ${lag} hours later a second train leaves the same station on a parallel track at ${v2} km/h in the same direction. How long after the second train departs does it catch up with the first, and how far from the station are they then? Show your reasoning.`,
    [[60, 2, 90], [72, 1, 96], [80, 3, 120], [45, 2, 75], [100, 1, 125], [55, 4, 110]],
  ],
  [
    ([price, pct, min, qty]) =>
      `A shop sells notebooks for $${price} each and gives ${pct}% off the whole order when you buy at least ${min}. How much do ${qty} notebooks cost, and how much cheaper is each notebook than at the full price?`,
    [[3, 15, 10, 12], [4, 20, 25, 30], [2, 10, 50, 60], [5, 25, 20, 24], [6, 12, 8, 15], [7, 30, 40, 45]],
  ],
  [
    ([more, perimeter]) => `The length of a rectangle is ${more} cm more than its width, and its perimeter is ${perimeter} cm. What are its dimensions and its area?`,
    [[4, 48], [6, 60], [10, 100], [3, 34], [12, 88], [5, 70]],
  ],
  [
    ([principal, rate, years]) =>
      `If I invest $${big(principal)} at ${rate}% annual interest compounded monthly, how much will I have after ${years} years? How does that compare with simple interest at the same rate? Round to the nearest cent.`,
    [[1000, 5, 10], [2500, 4, 8], [5000, 3, 15], [10000, 6, 5], [750, 7, 20], [1200, 2, 30]],
  ],
  [
    ([a, b, c]) =>
      `Pipe A fills a tank in ${a} hours and pipe B fills it in ${b} hours, while a drain at the bottom empties a full tank in ${c} hours. If the tank starts empty and all three are open, how long does it take to fill?`,
    [[4, 6, 12], [3, 5, 10], [2, 8, 6], [6, 9, 12], [5, 10, 20], [3, 4, 8]],
  ],
  [
    ([r, g, b]) =>
      `A bag holds ${r} red, ${g} green and ${b} blue marbles. You draw two marbles without putting the first one back. What is the probability that both are the same colour? What would it be if you did put the first one back?`,
    [[5, 3, 2], [4, 4, 4], [6, 2, 7], [3, 5, 8], [10, 5, 5], [2, 3, 9]],
  ],
  [
    ([a, b, c, d, e, f]) => `Solve the system of equations ${a}x + ${b}y = ${c} and ${d}x - ${e}y = ${f}, and check your solution by substituting it back.`,
    [[2, 3, 13, 1, 1, 4], [3, 2, 16, 2, 3, -5], [5, 1, 17, 1, 2, -1], [4, 3, 10, 2, 5, -8], [1, 4, 22, 3, 1, 0], [6, 5, 28, 4, 3, 10]],
  ],
  [
    ([s, p]) => `Find all real solutions of x^2 - ${s}x ${p < 0 ? '-' : '+'} ${Math.abs(p)} = 0. Then explain how the sum and the product of the roots relate to the coefficients.`,
    [[7, 12], [5, 6], [10, 21], [3, -10], [8, 15], [2, -15]],
  ],
  [
    ([len, foot]) =>
      `A ${len} m ladder leans against a vertical wall with its foot ${foot} m from the wall. How high up the wall does it reach, and what angle does it make with the ground? If the foot slides 1 m further out, how far does the top slide down?`,
    [[5, 3], [10, 6], [13, 5], [6, 2], [8, 4], [4, 1]],
  ],
  [
    ([start, rate, goal]) =>
      `A town of ${big(start)} people grows by ${rate}% every year. After how many whole years will its population first exceed ${big(goal)}? Solve it with logarithms and check the answer.`,
    [[20000, 3, 30000], [50000, 2, 75000], [8000, 5, 16000], [120000, 1, 150000], [3500, 4, 5000], [64000, 6, 100000]],
  ],
  [
    ([speedUp, dist, slower]) =>
      `A cyclist rides ${dist} km to a town at ${speedUp} km/h and returns along the same road at ${slower} km/h. What is her average speed for the whole trip, and why is it not simply the mean of the two speeds?`,
    [[20, 30, 15], [24, 36, 12], [30, 45, 20], [18, 27, 9], [25, 50, 10], [16, 40, 20]],
  ],
  [
    ([w, pct1, pct2]) =>
      `I have ${w} litres of a solution that is ${pct1}% salt. How much pure water must I add to bring it down to ${pct2}% salt? Explain the step where you set up the equation.`,
    [[10, 20, 15], [8, 30, 12], [5, 40, 25], [12, 15, 10], [20, 25, 20], [6, 50, 30]],
  ],
];

/** Exercises and proofs, written out. */
const WRITTEN: string[] = [
  'Prove that the square root of 2 is irrational.',
  'Prove that there are infinitely many prime numbers.',
  'Show that the sum of the first n odd numbers is n^2, both by induction and with a picture-style argument.',
  'Prove by induction that 1^3 + 2^3 + ... + n^3 = (n(n+1)/2)^2 for every positive integer n.',
  'Prove that n^3 - n is divisible by 6 for every integer n.',
  'Explain rigorously why 0.999... (repeating) equals 1.',
  'Compute the integral of x e^x dx and explain each step of the integration by parts.',
  'Find the derivative of f(x) = ln(x^2 + 1) / x and simplify it.',
  'Find the eigenvalues and eigenvectors of the matrix [[2, 1], [1, 2]], and explain what they mean geometrically.',
  'How many ways are there to arrange the letters of the word MISSISSIPPI? Explain the formula you use.',
  'Prove that the angles of a triangle add up to 180 degrees, using parallel lines.',
  'What is the probability that, in a group of 23 people, at least two share a birthday? Show how to compute it and why it is surprisingly high.',
  'Find the limit of (1 + 1/n)^n as n goes to infinity, and explain why it exists.',
  'Show that the harmonic series 1 + 1/2 + 1/3 + ... diverges.',
  'Solve the differential equation dy/dx = 3y with y(0) = 2, and check your answer.',
  'Prove that every tree with n vertices has exactly n - 1 edges.',
  'Use the Euclidean algorithm to find gcd(1071, 462), then write the gcd as a combination 1071a + 462b.',
  'A fair coin is flipped 10 times. What is the probability of getting exactly 6 heads? And at least 6 heads?',
  'Prove that if a and b are odd integers, then a^2 + b^2 is even but not divisible by 4.',
  'Find the area enclosed between the curves y = x^2 and y = 2x.',
  'Explain the Monty Hall problem and prove that switching doors wins with probability 2/3.',
  'Prove that the product of any four consecutive integers plus one is a perfect square.',
  'What is the sum of the infinite geometric series 3 + 3/4 + 3/16 + ...? Derive the general formula first.',
  'Find all integer solutions of 7x + 12y = 5, and explain why there are infinitely many.',
  'Show that a number is divisible by 9 exactly when the sum of its digits is divisible by 9.',
];

/** The math prompts: each word problem with each of its number sets, then the written ones. */
export function mathPrompts(): string[] {
  const out: string[] = [];
  for (const [problem, sets] of WORD_PROBLEMS) for (const n of sets) out.push(problem(n));
  return out.concat(WRITTEN);
}
