/**
 * `customer_dimension`, after Vertica's VMart example schema: the 14 San Francisco dancers that
 * Spark's OFFSET pull request (SPARK-28330) queries, plus deterministic filler customers in other
 * cities and occupations so the WHERE clause has something to filter out.
 */

export const CUSTOMER_COLUMNS: readonly (readonly [name: string, type: string])[] = [
  ['customer_key', 'integer'],
  ['customer_type', 'text'],
  ['customer_name', 'text'],
  ['customer_gender', 'text'],
  ['title', 'text'],
  ['customer_city', 'text'],
  ['customer_state', 'text'],
  ['customer_region', 'text'],
  ['marital_status', 'text'],
  ['customer_age', 'integer'],
  ['number_of_children', 'integer'],
  ['annual_income', 'integer'],
  ['occupation', 'text'],
  ['largest_bill_amount', 'integer'],
];

export type CustomerRow = readonly [number, string, string, string, string, string, string, string, string, number, number, number, string, number];

/** The dancers of the seed, in its ORDER BY customer_name order. */
const SF_DANCERS: readonly (readonly [name: string, gender: string])[] = [
  ['Amy X. Lang', 'Female'],
  ['Anna H. Li', 'Female'],
  ['Brian O. Weaver', 'Male'],
  ['Craig O. Pavlov', 'Male'],
  ['Doug Z. Goldberg', 'Male'],
  ['Harold S. Jones', 'Male'],
  ['Jack E. Perkins', 'Male'],
  ['Joseph W. Overstreet', 'Male'],
  ['Kevin . Campbell', 'Male'],
  ['Raja Y. Wilson', 'Male'],
  ['Samantha O. Brown', 'Female'],
  ['Steve H. Gauthier', 'Male'],
  ['William . Nielson', 'Male'],
  ['William Z. Roy', 'Male'],
];

const CITIES: readonly (readonly [city: string, state: string, region: string])[] = [
  ['San Francisco', 'CA', 'West'],
  ['Los Angeles', 'CA', 'West'],
  ['San Diego', 'CA', 'West'],
  ['Seattle', 'WA', 'NorthWest'],
  ['Portland', 'OR', 'NorthWest'],
  ['Denver', 'CO', 'West'],
  ['Phoenix', 'AZ', 'SouthWest'],
  ['Austin', 'TX', 'South'],
  ['Houston', 'TX', 'South'],
  ['Dallas', 'TX', 'South'],
  ['Chicago', 'IL', 'MidWest'],
  ['Detroit', 'MI', 'MidWest'],
  ['New York', 'NY', 'East'],
  ['Boston', 'MA', 'East'],
  ['Philadelphia', 'PA', 'East'],
  ['Miami', 'FL', 'South'],
];

const OCCUPATIONS: readonly string[] = [
  'Accountant',
  'Acrobat',
  'Actor',
  'Chef',
  'Dancer',
  'Doctor',
  'Engineer',
  'Farmer',
  'Lawyer',
  'Musician',
  'Nurse',
  'Pilot',
  'Police Officer',
  'Professor',
  'Programmer',
  'Teacher',
  'Writer',
];

const FEMALE = ['Alexandra', 'Amy', 'Anna', 'Barbara', 'Betty', 'Carla', 'Diana', 'Emily', 'Grace', 'Jessica', 'Julie', 'Laura', 'Linda', 'Mary', 'Meghan', 'Rebecca', 'Sarah', 'Tanya', 'Theresa', 'Virginia'];
const MALE = ['Alexander', 'Ben', 'Brian', 'Craig', 'Daniel', 'David', 'Doug', 'Emanuel', 'Harold', 'Jack', 'James', 'Joseph', 'Kevin', 'Lucas', 'Luigi', 'Mark', 'Matt', 'Raja', 'Robert', 'Sam', 'Steve', 'Tom', 'William'];
const LAST = ['Brown', 'Campbell', 'Carcetti', 'Dobisz', 'Fortin', 'Garnett', 'Gauthier', 'Goldberg', 'Greenwood', 'Harris', 'Jackson', 'Jones', 'Kramer', 'Lampert', 'Lang', 'Li', 'McCabe', 'Miller', 'Moore', 'Nguyen', 'Nielson', 'Overstreet', 'Pavlov', 'Perkins', 'Rodriguez', 'Roy', 'Smith', 'Taylor', 'Vogel', 'Weaver', 'Webber', 'Williams', 'Wilson', 'Young'];
const INITIALS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const MARITAL = ['Single', 'Married', 'Divorced', 'Widowed', 'Separated', 'Unknown'];

export const FILLER_CUSTOMERS = 500;

/**
 * All customers, keys 1..514. A fixed linear congruential generator (not Math.random) makes the
 * rows identical on every machine, so queries over them have stable answers.
 */
export function customerRows(): CustomerRow[] {
  let state = 20260101;
  const next = (n: number): number => {
    state = (state * 48271) % 2147483647;
    return state % n;
  };
  const total = SF_DANCERS.length + FILLER_CUSTOMERS;
  // Spread the dancers over the key range instead of giving them the first keys.
  const dancerAt = new Map<number, number>();
  SF_DANCERS.forEach((_d, i) => dancerAt.set(1 + Math.floor((i * total) / SF_DANCERS.length) + 3, i));
  const rows: CustomerRow[] = [];
  for (let key = 1; key <= total; key++) {
    const dancer = dancerAt.get(key);
    let name: string;
    let gender: string;
    let city: readonly [string, string, string];
    let occupation: string;
    if (dancer !== undefined) {
      [name, gender] = SF_DANCERS[dancer];
      city = CITIES[0];
      occupation = 'Dancer';
    } else {
      gender = next(2) === 0 ? 'Female' : 'Male';
      const first = gender === 'Female' ? FEMALE[next(FEMALE.length)] : MALE[next(MALE.length)];
      // VMart leaves some middle initials empty ("Kevin . Campbell"); keep that quirk.
      const initial = next(8) === 0 ? '' : INITIALS[next(INITIALS.length)];
      name = `${first} ${initial}. ${LAST[next(LAST.length)]}`;
      city = CITIES[next(CITIES.length)];
      occupation = OCCUPATIONS[next(OCCUPATIONS.length)];
      // The 14 seed dancers must stay the only dancers in San Francisco.
      if (occupation === 'Dancer' && city[0] === 'San Francisco') city = CITIES[1 + next(CITIES.length - 1)];
    }
    const age = 18 + next(70);
    const title = gender === 'Female' ? ['Ms.', 'Mrs.', 'Dr.'][next(3)] : ['Mr.', 'Sir', 'Dr.'][next(3)];
    rows.push([
      key,
      next(5) === 0 ? 'Company' : 'Individual',
      name,
      gender,
      title,
      city[0],
      city[1],
      city[2],
      MARITAL[next(MARITAL.length)],
      age,
      next(5),
      1000 * (20 + next(980)),
      occupation,
      100 * (1 + next(50)),
    ]);
  }
  return rows;
}
